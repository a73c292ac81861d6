--[[
splaylab.socket_relay - a TCP connect through the node relay (issue 24; daemon/splayd/relay_link.py):
a peer whose daemon this node's daemon cannot reach is connected to through the daemon's relay
link. Runtime side only (splaylab.socket; never given to student code).

  relay.handshake(raw, job_id, ip, port, deadline) -> true | nil, err
      raw: a socket already connected to the daemon's door (127.0.0.1:relay.port); writes
      "JOB IP:PORT\n", reads the door's "ok" (the socket then carries the stream) or
      "err MESSAGE" (the relay's or the far daemon's refusal: "connection refused", or the
      address rule's own "connect to IP:PORT denied: not a node of this job"); "timeout" when
      the deadline passes first (the link is down: as a connect whose SYNs go unanswered).
Every rule (address list, blacklist, budgets, emulated network, trace) was applied by
splaylab.socket against the job address before; the door's line is not counted in the budgets.
Datagrams to such a peer go through the daemon's UDP door instead (splaylab.socket_udp).
]]
local events = require "splaylab.events"
local platform = require "splaylab.platform"

local M = { _NAME = "splaylab.socket_relay", _VERSION = "0.1" }

local function send_all(raw, data, deadline)
  local pos = 1
  while pos <= #data do
    local last, err, partial = raw:send(data, pos)
    if last then return true end
    if err ~= "timeout" then return nil, err end
    pos = (partial or pos - 1) + 1
    if not events.wait_socket(raw, "w", deadline) then return nil, "timeout" end
  end
  return true
end

function M.handshake(raw, job_id, ip, port, deadline)
  local ok, err = send_all(raw, string.format("%s %s:%s\n", tostring(job_id), ip, tostring(port)), deadline)
  if not ok then return nil, err end
  local got = ""
  while true do
    local line, e, partial = raw:receive("*l", got)
    if line then
      if line == "ok" then return true end
      return nil, line:match("^err (.*)$") or "relay: unexpected answer"
    end
    if e ~= "timeout" then return nil, e == "closed" and "connection refused" or e end
    got = partial or got
    if deadline and platform.now() >= deadline then return nil, "timeout" end
    if not events.wait_socket(raw, "r", deadline) then return nil, "timeout" end
  end
end

return M
