"""Trio in guest mode on an asyncio loop, as network play will run inside Textual."""

from __future__ import annotations

import asyncio

import trio
from cuttle_client.trio_guest import TrioGuest


def test_messages_cross_both_ways_and_cancel_ends_the_run() -> None:
    async def host() -> list[str]:
        got: list[str] = []
        finished = asyncio.Event()
        send, receive = trio.open_memory_channel[str](10)

        async def network() -> None:
            async for text in receive:  # a trio task calls back into the host directly
                got.append(f"trio saw {text}")
            await trio.sleep_forever()

        guest = TrioGuest()
        guest.start(network, on_done=lambda result: finished.set())
        guest.run_sync_soon(send.send_nowait, "draw")
        await asyncio.sleep(0.05)
        assert got == ["trio saw draw"]
        guest.cancel()
        await asyncio.wait_for(finished.wait(), 5)
        assert guest.done
        return got

    assert asyncio.run(host()) == ["trio saw draw"]
