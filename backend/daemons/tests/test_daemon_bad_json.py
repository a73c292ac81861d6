"""A frame nested too deep for Python's json (a RecursionError, not a ValueError) is ignored like
any frame that is not a JSON object, even before hello: the connection stays usable (issue 20)."""
import pytest
from channels.testing import WebsocketCommunicator

from splaylab.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_deeply_nested_frame_is_ignored_and_the_socket_still_answers() -> None:
    ws = WebsocketCommunicator(application, "/ws/daemon/")
    assert (await ws.connect())[0]
    await ws.send_to(text_data="[" * 100_000 + "]" * 100_000)
    await ws.send_json_to({"type": "hello", "name": "intruder", "key": "not-a-key", "session": None})
    assert await ws.receive_json_from(timeout=5) == {"type": "refused", "reason": "unknown daemon key"}
    assert await ws.receive_output(timeout=5) == {"type": "websocket.close", "code": 4001}
