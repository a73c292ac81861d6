import pytest

from lib.descriptor import ACCEPTED, ENFORCED, DescriptorError, descriptor_parse, trace_clean

PAPER = """--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 100
list_type random
list_size 20
max_mem 20000000
END SPLAY RESOURCES RESERVATION
]]
require "splay.base"
"""


def errors_of(code: str) -> list[str]:
    with pytest.raises(DescriptorError) as info:
        descriptor_parse(code)
    return info.value.errors


def test_no_block_is_none() -> None:
    assert descriptor_parse("print('hi')\n-- SPLAY RESOURCES\n") is None


def test_the_papers_block() -> None:
    d = descriptor_parse(PAPER)
    assert d is not None
    assert d.values == {"nb_splayds": 100, "list_type": "random", "list_size": 20, "max_mem": 20000000}
    assert (d.nb_splayds, d.list_type, d.list_size, d.max_mem, d.max_time) == (100, "random", 20, 20000000, None)
    assert d.lines == {"nb_splayds": 3, "list_type": 4, "list_size": 5, "max_mem": 6}
    assert d.limits() == {}


def test_original_spelling_and_dash_comments() -> None:
    code = ("-- BEGIN SPLAY RESSOURCES RESERVATION\n-- nb_splayds 3\n--\n--   max_time 20\n"
            "-- END SPLAY RESSOURCES RESERVATION\nprint(1)\n")
    d = descriptor_parse(code)
    assert d is not None and d.values == {"nb_splayds": 3, "max_time": 20}
    assert (d.list_type, d.list_size) == ("head", 0)


def test_every_key_of_splay_is_accepted() -> None:
    values = {
        "nb_splayds": "5", "factor": "1.5", "list_type": "head", "list_size": "3", "max_mem": "33554432",
        "disk_max_size": "1048576", "disk_max_files": "10", "disk_max_file_descriptors": "8",
        "network_max_send": "1000000", "network_max_receive": "2000000", "network_max_sockets": "16",
        "network_nb_ports": "1", "network_send_speed": "1000", "network_receive_speed": "1000",
        "udp_drop_ratio": "0.25", "max_time": "60", "max_load": "2.5", "min_uptime": "3600",
        "hostmasks": "%.unine.ch", "localization": "CH", "distance": "100", "latitude": "46.99",
        "longitude": "6.93", "keep_files": "no", "scheduler": "standard",
        # SplayLab's emulated network
        "network_model": "transit-stub", "network_loss": "1%", "network_partition": "10s+5s:0.5",
        "network_mtu": "1400",
        # SplayLab's selection
        "daemon_labels": "room=B12",
        # SplayLab's message trace
        "trace": "true",
        # SplayLab's output limits (lower than the daemons')
        "log_lines_per_second": "100", "log_max_size": "1048576",
    }
    assert set(values) == set(ENFORCED) | set(ACCEPTED)
    body = "\n".join(f"{k} {v}" for k, v in values.items())
    d = descriptor_parse(f"--[[\nBEGIN SPLAY RESOURCES RESERVATION\n{body}\nEND SPLAY RESOURCES RESERVATION\n]]")
    assert d is not None and len(d.values) == len(values)
    assert d.limits() == {"disk_max_size": 1048576, "disk_max_files": 10, "max_send": 1000000,
                          "max_receive": 2000000, "max_sockets": 16, "udp_drop_ratio": 0.25,
                          "log_lines_per_second": 100, "log_max_size": 1048576}
    assert d.network_options() == {"net": "transit-stub", "loss": "1%", "mtu": 1400, "bandwidth": "1000B/s",
                                   "partitions": ["10s+5s:0.5"]}


@pytest.mark.parametrize("line,message", [
    ("network_model moon", "'network_model': unknown network model 'moon'"),
    ("network_model matrix:delays.csv", "'network_model': matrix models need an uploaded file"),
    ("network_loss 150%", "'network_loss': bad loss '150%': must be at least 0 and less than 1"),
    ("network_partition soon:0.5", "'network_partition': bad partition start 'soon'"),
    ("network_mtu 20", "'network_mtu': expected an integer between 68 and 65535 (bytes), got 20"),
])
def test_bad_network_keys_name_the_problem(line: str, message: str) -> None:
    [err] = errors_of(f"--[[\nBEGIN SPLAY RESOURCES RESERVATION\n{line}\nEND SPLAY RESOURCES RESERVATION\n]]")
    assert err.startswith(f"app.lua:3: descriptor: {message}"), err


def test_unknown_key_names_the_line_and_suggests() -> None:
    code = "--[[\nBEGIN SPLAY RESOURCES RESERVATION\nnb_splayd 10\ncolour blue\nEND SPLAY RESOURCES RESERVATION\n]]"
    errs = errors_of(code)
    assert errs[0] == "app.lua:3: descriptor: unknown key 'nb_splayd' (did you mean 'nb_splayds'?)"
    assert errs[1].startswith("app.lua:4: descriptor: unknown key 'colour' (known keys: daemon_labels, disk_max_file_descriptors, ")


@pytest.mark.parametrize("line,message", [
    ("nb_splayds 0", "'nb_splayds': expected an integer between 1 and 10000, got 0"),
    ("nb_splayds ten", "'nb_splayds': expected an integer, got 'ten'"),
    ("list_type ring", "'list_type': expected one of head, random, got 'ring'"),
    ("max_mem 20MB", "'max_mem': expected an integer (bytes), got '20MB'"),
    ("max_mem 1000", "'max_mem': expected an integer between 16777216 and 68719476736 (bytes), got 1000"),
    ("max_time 7200", "'max_time': expected an integer between 1 and 3600 (seconds), got 7200"),
    ("udp_drop_ratio 1.5", "'udp_drop_ratio': expected a number between 0 and 1, got 1.5"),
    ("udp_drop_ratio nan", "'udp_drop_ratio': expected a number between 0 and 1, got nan"),
    ("list_size", "'list_size' needs a value"),
    ("factor 0.8", "'factor': expected a number between 1 and 10, got 0.8"),
    ("factor many", "'factor': expected a number, got 'many'"),
    ("daemon_labels room", "'daemon_labels': expected label=value pairs such as room=B12,owner=volunteer, "
                           "got 'room'"),
    ("daemon_labels room=B12,room=B13", "'daemon_labels': label 'room' is given twice (use room=a|b for "
                                        "either value)"),
    ("daemon_labels room=B/12", "'daemon_labels': bad value 'B/12' for label 'room' (letters, digits, "
                                "_ . - only)"),
])
def test_bad_values_name_the_key_and_line(line: str, message: str) -> None:
    code = f"print(1)\n--[[\nBEGIN SPLAY RESOURCES RESERVATION\n{line}\nEND SPLAY RESOURCES RESERVATION\n]]"
    with pytest.raises(DescriptorError) as info:
        descriptor_parse(code, "ring.lua")
    assert info.value.errors == [f"ring.lua:4: descriptor: {message}"]
    assert info.value.line == 4


def test_duplicate_key_and_missing_end() -> None:
    code = "--[[\nBEGIN SPLAY RESOURCES RESERVATION\nmax_time 5\nmax_time 6\nEND SPLAY RESOURCES RESERVATION\n]]"
    assert errors_of(code) == ["app.lua:4: descriptor: 'max_time' is given twice (first on line 3)"]
    assert errors_of("--[[\nBEGIN SPLAY RESOURCES RESERVATION\nmax_time 5\n]]") == [
        "app.lua:2: descriptor: BEGIN SPLAY RESOURCES RESERVATION without END SPLAY RESOURCES RESERVATION"]
    assert errors_of("-- END SPLAY RESOURCES RESERVATION\n") == [
        "app.lua:1: descriptor: END without BEGIN SPLAY RESOURCES RESERVATION"]


def test_second_block_is_refused() -> None:
    block = "--[[\nBEGIN SPLAY RESOURCES RESERVATION\nmax_time 5\nEND SPLAY RESOURCES RESERVATION\n]]\n"
    assert errors_of(block + block) == [
        "app.lua:7: descriptor: a second BEGIN SPLAY RESOURCES RESERVATION (only one block is allowed)"]


def test_factor_and_daemon_labels_are_parsed() -> None:
    d = descriptor_parse("--[[\nBEGIN SPLAY RESOURCES RESERVATION\nfactor 2\n"
                         "daemon_labels room=B12, owner=classroom|volunteer\n"
                         "END SPLAY RESOURCES RESERVATION\n]]")
    assert d is not None and d.factor == 2.0
    assert d.daemon_labels == {"room": ["B12"], "owner": ["classroom", "volunteer"]}


def _block(line: str) -> str:
    return f"--[[\nBEGIN SPLAY RESOURCES RESERVATION\n{line}\nEND SPLAY RESOURCES RESERVATION\n]]"


@pytest.mark.parametrize("value,trace", [
    ("true", {"max_events": 20000}), ("yes", {"max_events": 20000}), ('{"max_events": 500}', {"max_events": 500}),
    ("{}", {"max_events": 20000}), ('{"max_events": 1000000}', {"max_events": 1000000}),
    ("false", None), ("off", None),
])
def test_the_trace_key_turns_the_message_trace_on_or_off(value: str, trace: dict | None) -> None:
    d = descriptor_parse(_block(f"trace {value}"))
    assert d is not None and d.trace == trace


@pytest.mark.parametrize("value,message", [
    ('{"max_events": 0}', "'trace': max_events: expected an integer between 1 and 1,000,000, got 0"),
    ('{"max_events": 1000001}', "'trace': max_events: expected an integer between 1 and 1,000,000, got 1000001"),
    ('{"max_events": "many"}', "'trace': max_events: expected an integer between 1 and 1,000,000, got \"many\""),
    ('{"max_events": true}', "'trace': max_events: expected an integer between 1 and 1,000,000, got true"),
    ('{"events": 10}', "'trace': unknown option 'events' (known: max_events)"),
    ("{max_events: 10}", "'trace': expected true, false or {\"max_events\": N}, got '{max_events: 10}' (not valid JSON)"),
    ("maybe", "'trace': expected true, false or {\"max_events\": N}, got 'maybe'"),
    ("[500]", "'trace': expected true, false or {\"max_events\": N}, got '[500]'"),
])
def test_a_bad_trace_value_names_the_problem(value: str, message: str) -> None:
    assert errors_of(_block(f"trace {value}")) == [f"app.lua:3: descriptor: {message}"]


def test_trace_clean_takes_the_requests_json_values() -> None:
    assert trace_clean(None) is None and trace_clean(False) is None
    assert trace_clean(True) == {"max_events": 20000} and trace_clean({"max_events": 7}) == {"max_events": 7}
    with pytest.raises(ValueError, match=r'^expected true, false or \{"max_events": N\}, got "on"$'):
        trace_clean("on")
