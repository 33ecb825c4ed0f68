"""A file where a folder is expected, or a FIFO, device or huge file where a record is: the
player's own files, which may be anything. Each is said in one line naming the path, before
anything is lost (a record at a game's end, a seat taken), never a traceback or a hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cuttle_client.cli import main
from cuttle_protocol.store import ConfigError, KnownPeers, check_folders

from cuttle_net.records.record import MAX_RECORD_BYTES, RecordError, read_record_file
from tests.records.test_verify import cuttle

NOWHERE = "127.0.0.1:9"  # loopback, where nobody listens: a command that dials fails at once


@pytest.mark.parametrize("folder", ["journal", "games"])
@pytest.mark.parametrize("command", ["join", "watch"])
def test_a_file_in_place_of_a_data_folder_is_said_before_the_table(
    folder: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a file at `journal` stopped `cuttle join` with a traceback once seated; at
    `games`, the game was played and its record lost to a traceback at the end."""
    data = tmp_path / "data"
    data.mkdir()
    (data / folder).write_text("in the way\n")
    bot = ["--bot", "random"] if command == "join" else []
    status = main(
        [command, NOWHERE, *bot, "--config-dir", str(tmp_path / "c")] + ["--data-dir", str(data)]
    )
    said = capsys.readouterr()
    assert status == 2
    assert said.err.strip().splitlines() == [
        f"cuttle: the {'records' if folder == 'games' else 'journal'} directory"
        f" {data / folder} is not a directory"
    ]
    assert (data / folder).read_text() == "in the way\n"  # nothing of the player's lost


def test_a_file_in_place_of_the_config_folder_is_a_config_error(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text("x")
    with pytest.raises(ConfigError, match=r"the config directory .* is not a directory"):
        check_folders(config, tmp_path / "data")
    below = tmp_path / "file" / "data"  # a file on the way to the folder
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match=r"journal directory .* cannot be made: Not a direct"):
        check_folders(tmp_path / "c", below)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_given_as_a_record_is_refused_without_waiting(tmp_path: Path) -> None:
    """Before: `cuttle verify` on a FIFO waited for a writer for ever (the subprocess's
    timeout is only a bound on failure)."""
    fifo = tmp_path / "pipe.cuttle"
    os.mkfifo(fifo)
    done = cuttle("verify", str(fifo))
    assert done.returncode == 2
    assert done.stderr.strip() == f"cuttle: {fifo} is not a game record: not a regular file"


def test_a_huge_record_is_refused_reading_at_most_the_limit(tmp_path: Path) -> None:
    huge = tmp_path / "huge.cuttle"
    with huge.open("wb") as f:
        f.truncate(MAX_RECORD_BYTES * 64)  # sparse: a gigabyte on no disk
    with pytest.raises(RecordError, match="over"):
        read_record_file(huge)
    with pytest.raises(RecordError, match="not a regular file"):
        read_record_file(Path("/dev/zero"))


def test_a_broken_known_peers_file_is_said_before_the_table_opens(tmp_path: Path) -> None:
    """Before: a table host read its known-peers file only when a joiner arrived, in the
    task serving it, and stopped with a traceback; the joiner read 'connection ended: '."""
    config = tmp_path / "c"
    config.mkdir(mode=0o700)
    (config / "known_peers.json").write_text("[1, 2, 3]\n")
    (config / "known_peers.json").chmod(0o600)
    with pytest.raises(ConfigError, match="is not a known-peers file"):
        KnownPeers(config)
    # The subprocess's timeout bounds only a failure (a host that listens and waits).
    host = ["host", "--port", "0", "--bind", "127.0.0.1", "--no-announce", "--no-map"]
    done = cuttle(
        *host, "--bot", "random", "--config-dir", str(config), "--data-dir", str(tmp_path / "d")
    )
    said = done.stdout + done.stderr
    assert done.returncode == 2 and "Traceback" not in said
    assert "known_peers.json is not a known-peers file" in said


def test_a_name_that_cannot_be_kept_is_said_and_still_used(tmp_path: Path) -> None:
    """Before: a directory at client.json (or a file as the config folder) stopped
    `cuttle play --name` and the lobby's name change with a traceback."""
    from cuttle_client.profile import save_name, saved_name

    (tmp_path / "c" / "client.json").mkdir(parents=True)
    assert "client.json cannot be written: Is a directory" in (
        save_name("Zed", tmp_path / "c") or ""
    )
    (tmp_path / "file").write_text("x")
    assert "is not a directory" in (save_name("Zed", tmp_path / "file") or "")
    assert save_name("Zed", tmp_path / "fine") is None
    assert saved_name(tmp_path / "fine") == "Zed"
