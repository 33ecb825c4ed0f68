"""Trio in guest mode on an asyncio loop: one run, several tasks, as inside Textual."""

from __future__ import annotations

import asyncio

import trio
from cuttle_client.trio_guest import TrioGuest


def test_tasks_share_one_run_messages_cross_and_cancelling_ends_each() -> None:
    async def host() -> list[str]:
        got: list[str] = []
        send, receive = trio.open_memory_channel[str](10)

        async def network() -> None:
            async for text in receive:  # a trio task calls back into the host directly
                got.append(f"trio saw {text}")

        async def browser() -> None:
            await trio.sleep_forever()

        guest = TrioGuest()
        guest.start()
        first, second = guest.start_task(network), guest.start_task(browser)
        guest.run_sync_soon(send.send_nowait, "draw")
        await asyncio.sleep(0.05)
        assert got == ["trio saw draw"]
        await second.aclose()  # one task ends; the other and the run go on
        assert second.done and not first.done and not guest.done
        guest.run_sync_soon(send.send_nowait, "pass")
        await asyncio.sleep(0.05)
        await guest.aclose()
        assert guest.done and first.done
        return got

    assert asyncio.run(host()) == ["trio saw draw", "trio saw pass"]
