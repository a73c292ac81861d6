--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 8
list_type head
list_size 1
END SPLAY RESOURCES RESERVATION
]]
-- Chord with successor and predecessor lists on splay.rpcq, written like SPLAY's chord_p.lua
-- (the same idioms: rpc = require"splay.rpcq" and its settings, log:print, acall with failure
-- tracking, notify returning all known nodes, events.run with events.periodic(time, f)).
-- Only the timeouts (seconds, not minutes), the rendez-vous (job.nodes[1]) and the report at the
-- end (ring and lookup lines, read by sandbox/tests/test_splay_apps.py) are ours.
require"splay.base"
rpc = require"splay.rpcq"

between, thread = misc.between_c, events.thread
n, predecessors, finger, successors, m, r = {}, {}, {}, {}, 32, 4

rpc_timeout, ping_timeout, verify_timeout = 5, 2, 3
stabilize_timeout, fix_fingers_timeout, check_timeout = 1, 0.5, 2
rpc.settings.clean_timeout = 30
rpc.settings.reconnect_interval = 2
rpc.settings.max = 16

log.global_level = 2

_check_c, _check_r = {}, {}
function check(p)
	local s = p.ip..":"..p.port
	if not _check_c[s] or _check_c[s] < misc.time() - verify_timeout then
		_check_r[s] = rpc.ping(p, ping_timeout)
		_check_c[s] = misc.time()
	end
	return _check_r[s]
end
function set_ok(p) local s = p.ip..":"..p.port _check_r[s] = true _check_c[s] = misc.time() end
function set_failed(p) local s = p.ip..":"..p.port _check_r[s] = false _check_c[s] = misc.time() end
function is_failed(p)
	local s = p.ip..":"..p.port
	return _check_c[s] and _check_c[s] > misc.time() - verify_timeout and not _check_r[s]
end

function insert_finger(s)
	local ins = false
	if finger[1].id == n.id or between(s.id, n.id, finger[1].id) then
		finger[1] = s
		ins = true
	end
	for i = 2, m do
		local v = (n.id + 2^(i - 1)) % 2^m
		if between(s.id, v - 1, (finger[i] or n).id) or (not finger[i] and between(s.id, v - 1, n.id)) then
			finger[i] = s
			ins = true
		end
	end
	return ins
end

function repack(list, before)
	local s = {}
	for _, v in pairs(list) do table.insert(s, v) end
	table.sort(s, before)
	while #s > r do table.remove(s) end
	return s
end

function insert_one(s)
	if s.id == n.id or is_failed(s) then return end
	for _, e in pairs(successors) do if e.id == s.id then return end end
	if check(s) then
		insert_finger(s)
		table.insert(successors, s)
		successors = repack(successors, function(a, b) return between(a.id, n.id, b.id) end)
		local known = false
		for _, e in pairs(predecessors) do if e.id == s.id then known = true end end
		if not known then
			table.insert(predecessors, s)
			predecessors = repack(predecessors, function(a, b) return between(a.id, b.id, n.id) end)
		end
	end
end

function insert(s)
	if not s then return end
	if s.id then thread(function() insert_one(s) end) return end
	for _, e in pairs(s) do thread(function() insert_one(e) end) end
end

function failed(p)
	log:warning("failed", p.id, p.ip..":"..p.port)
	set_failed(p)
	for i = m, 1, -1 do
		if finger[i] and finger[i].id == p.id then finger[i] = nil end
	end
	for i = #successors, 1, -1 do if successors[i].id == p.id then table.remove(successors, i) end end
	for i = #predecessors, 1, -1 do if predecessors[i].id == p.id then table.remove(predecessors, i) end end
	finger[1] = finger[1] or successors[1] or n
end

function acall(h, c, t)
	if is_failed(h) then return false end
	local ok, reply = rpc.acall(h, c, t or rpc_timeout)
	if h.id then
		if ok then set_ok(h) else failed(h) end
	end
	return ok, reply
end

function all_nodes()
	local a, seen = {n}, {[n.id] = true}
	for _, list in pairs({finger, successors, predecessors}) do
		for _, p in pairs(list) do
			if not seen[p.id] then seen[p.id] = true table.insert(a, p) end
		end
	end
	return a
end

function do_notify(node)
	local ok, reply = acall(node, {'notify', n, all_nodes()})
	if ok then insert(reply[1]) end
end

function join(n0)
	local ok, reply = acall(n0, {'find_successor', {id = n.id, typ = "join"}})
	if ok and reply[1] then
		insert(reply[1])
		insert(reply[2])
		do_notify(reply[1])
		return true
	end
end

function closest_preceding_node(id)
	for i = m, 1, -1 do
		if finger[i] and between(finger[i].id, n.id, id) then return finger[i] end
	end
	return n
end

function find_successor(o)
	o.count_hops = (o.count_hops or 0) + 1
	if o.count_hops > 25 then
		log:warning("recursivity max reached", n.id, o.id)
		return nil
	end
	if finger[1].id == n.id or between(o.id, n.id, (finger[1].id + 1) % 2^m) then
		if o.typ == "join" then return finger[1], all_nodes() end
		return finger[1], o
	end
	local n0 = closest_preceding_node(o.id)
	if n0.id == n.id then return finger[1], o end
	local ok, reply = acall(n0, {'find_successor', o})
	if ok then return unpack(reply) end
	return find_successor(o)
end

function notify(n0, an)
	set_ok(n0)
	insert(n0)
	insert(an)
	return all_nodes()
end

function stabilize()
	if finger[1].id == n.id then return end
	local ok, reply = acall(finger[1], {'predecessor_of'})
	if ok and reply[1] then insert(reply[1]) end
	do_notify(finger[1])
end

-- the closest node before us that we know (a served function)
function predecessor_of()
	return predecessors[1]
end

function fix_fingers()
	refresh = (refresh and (refresh % m) + 1) or 1
	local s = find_successor({id = (n.id + 2^(refresh - 1)) % 2^m})
	if s then insert(s) end
end

function check_predecessors()
	if #predecessors > 0 then do_notify(misc.random_pick(predecessors)) end
end

-- reporting (ours)
function report()
	log:print(string.format("ring id=%d succ=%d pred=%s", n.id, finger[1].id,
		predecessors[1] and string.format("%d", predecessors[1].id) or "nil"))
end
function lookups(count)
	for _ = 1, count do
		local key = math.random(0, 2^16 - 1) * 2^16 + math.random(0, 2^16 - 1)
		local s = find_successor({id = key})
		if s then log:print(string.format("lookup key=%d owner=%d", key, s.id)) end
	end
end

events.run(function()
	n.id = (math.random(1, 2^16) * math.random(1, 2^16)) - 1
	n.ip, n.port = job.me.ip, job.me.port
	finger[1] = n
	local rdv = job.nodes[1]

	if not rpc.server(n) then
		log:error("Cannot bind port", n.port)
		return
	end
	log:print("START", n.id)

	if rdv.ip == n.ip and rdv.port == n.port then
		log:print("RDV start")
	else
		events.sleep(0.2 * job.position)
		while not join(rdv) do
			log:warning("Join failed")
			events.sleep(1)
		end
		log:print("RDV joined")
	end

	events.periodic(stabilize_timeout, stabilize)
	events.periodic(check_timeout, check_predecessors)
	events.periodic(fix_fingers_timeout, fix_fingers)
	thread(function()
		events.sleep(20)
		report()
		lookups(5)
		events.sleep(4)
		report()
		log:print(rpc.infos())
	end)
end)
