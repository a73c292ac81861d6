"""The live views' channel layer (settings CHANNEL_LAYERS["live"]): Redis pub/sub, whose channels
are server-wide, so its prefix names the Redis database the stack uses."""
import pytest
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings

from splaylab.settings import _live_layer_prefix, _redis_db


@pytest.mark.parametrize(("url", "db"), [
    ("redis://127.0.0.1:63799/0", "0"), ("redis://127.0.0.1:63799/14", "14"),
    ("redis://127.0.0.1:63799", "0"), ("redis://:secret@redis:6379/3", "3"),
    ("redis://127.0.0.1:63799?db=5", "5"),
])
def test_the_database_of_a_redis_url(url: str, db: str) -> None:
    assert _redis_db(url) == db


def test_the_live_layer_is_redis_pubsub_with_a_prefix_of_its_own() -> None:
    live, default = settings.CHANNEL_LAYERS["live"], settings.CHANNEL_LAYERS["default"]
    assert live["BACKEND"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert live["CONFIG"]["prefix"] != default["CONFIG"]["prefix"]


async def test_layers_of_two_databases_do_not_hear_each_others_groups() -> None:
    """Two stacks on one Redis (databases 1 and 2), each with a viewer of its job 1."""
    server = settings.REDIS_URL.rsplit("/", 1)[0]
    a = RedisPubSubChannelLayer(hosts=[server + "/1"], prefix=_live_layer_prefix("splaylab-iso-test", server + "/1"))
    b = RedisPubSubChannelLayer(hosts=[server + "/2"], prefix=_live_layer_prefix("splaylab-iso-test", server + "/2"))
    try:
        viewer_a, viewer_b = await a.new_channel(), await b.new_channel()
        await a.group_add("job-1", viewer_a)
        await b.group_add("job-1", viewer_b)
        await a.group_send("job-1", {"type": "log.lines", "text": "from a"})
        assert (await a.receive(viewer_a))["text"] == "from a"
        await b.group_send("job-1", {"type": "log.lines", "text": "from b"})
        assert (await b.receive(viewer_b))["text"] == "from b"  # b's viewer never got a's message
    finally:
        await a.flush()
        await b.flush()
