--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 8
list_type head
list_size 1
END SPLAY RESOURCES RESERVATION
]]
-- Pastry-style routing and a Scribe group, written like SPLAY's scribe.lua: node ids are SHA-1
-- digests of "ip:port" (crypto.evp, as scribe.lua's compute_id), keys are hexadecimal strings,
-- messages are routed by longest shared prefix then numerical closeness, a group's root is the
-- node closest to the group's key, subscribers join the group's tree on the way. Ours: the leaf
-- set is every node learned (8 nodes), and published messages carry an HMAC of the group's
-- secret (crypto.hmac) that every receiver checks. Read by sandbox/tests/test_splay_apps.py.
require"splay.base"
rpc = require"splay.rpc"
ev = events
evp = require"crypto.evp"
hmac = require"crypto.hmac"

log.set_level(2)

tc, tr, ti, sub = misc.table_concat, table.remove, table.insert, string.sub
b, bits = 4, 32
key_size = bits / b
secret = "scribe-group-secret"

A, known = {}, {}
groups = {}      -- groupkey -> {children = {node...}, parent = node}
delivered = {}

function compute_id(o) return sub(evp.new("sha1"):digest(o), 1, bits / 4) end
function num(key) return tonumber("0x"..key) end
function diff(key1, key2)
	local d = math.abs(num(key1) - num(key2))
	return math.min(d, 2^bits - d)
end
function shl(a, c)
	for i = 1, key_size do if sub(a, i, i) ~= sub(c, i, i) then return i - 1 end end
	return key_size
end

function insert(node)
	if not node or not node.id or node.id == A.id then return end
	for _, k in pairs(known) do if k.id == node.id then return end end
	ti(known, node)
	log:info("insert "..node.id)
end

-- the next hop for key: a node sharing a longer prefix, else one numerically closer than us
function next_hop(key)
	local best, best_shl, best_diff = nil, shl(key, A.id), diff(key, A.id)
	for _, k in pairs(known) do
		local s, d = shl(key, k.id), diff(key, k.id)
		if s > best_shl or (s == best_shl and d < best_diff) then best, best_shl, best_diff = k, s, d end
	end
	return best
end

-- Pastry API: route msg toward key; the node reached is returned
function route(msg, key)
	local T = next_hop(key)
	if T then
		if forward then forward(msg, key, T) end
		local n = rpc.call(T, {'route', msg, key})
		if n then return n end
		for i, k in pairs(known) do if k.id == T.id then tr(known, i) break end end
		return route(msg, key)
	end
	deliver(msg, key)
	return A
end

function join(node)
	local r = rpc.call(node, {'leafs', A})
	if not r then return nil end
	for _, n in pairs(r) do insert(n) end
	return true
end

function leafs(from)
	insert(from)
	return tc(misc.dup(known), {A})
end

function keep_alive()
	local peer = misc.random_peek_one(known)
	if peer then
		local r = rpc.call(peer, {'leafs', A})
		if r then for _, n in pairs(r) do insert(n) end end
	end
end

-- SCRIBE ---------------------------------------------------------------------
function sign(groupkey, data) return hmac.digest("sha1", groupkey..":"..data, secret) end

function forward(msg, key, T)
	if msg.typ == "JOIN" and msg.source.id ~= A.id then
		-- we become a forwarder of that group: the joining node is our child
		if not groups[key] then
			groups[key] = {children = {}}
			ev.thread(function() route({typ = "JOIN", groupkey = key, source = A}, key) end)
		end
		add_child(key, msg.source)
	end
end

function add_child(key, node)
	for _, c in pairs(groups[key].children) do if c.id == node.id then return end end
	ti(groups[key].children, node)
end

function deliver(msg, key)
	if msg.typ == "JOIN" then
		if not groups[key] then groups[key] = {children = {}} end
		if msg.source.id ~= A.id then add_child(key, msg.source) end
	elseif msg.typ == "PUBLISH" then
		multicast(msg)
	end
end

function multicast(msg)
	if msg.mac ~= sign(msg.groupkey, msg.data) then
		log:error("bad HMAC on message "..tostring(msg.data))
		return
	end
	if subscribed and not delivered[msg.data] then
		delivered[msg.data] = true
		log:print("delivered "..msg.data)
	end
	local g = groups[msg.groupkey]
	if g then
		for _, child in pairs(misc.dup(g.children)) do
			ev.thread(function() rpc.call(child, {'multicast', msg}) end)
		end
	end
end

function subscribe(groupkey)
	subscribed = true
	if not groups[groupkey] then groups[groupkey] = {children = {}} end
	route({typ = "JOIN", groupkey = groupkey, source = A}, groupkey)
end

function publish(groupkey, data)
	route({typ = "PUBLISH", groupkey = groupkey, data = data, mac = sign(groupkey, data)}, groupkey)
end

events.run(function()
	A.ip, A.port = job.me.ip, job.me.port
	A.id = compute_id(A.ip..":"..A.port)
	rpc.server(A.port)
	log:print("ID "..A.id)
	local rdv = job.nodes[1]
	if not (rdv.ip == A.ip and rdv.port == A.port) then
		events.sleep(0.2 * job.position)
		while not join(rdv) do events.sleep(1) end
	end
	events.periodic(1, keep_alive)
	events.sleep(8)
	local group = compute_id("the group")
	subscribe(group)
	log:print("subscribed "..group)
	events.sleep(4)
	if job.position == 1 then
		for i = 1, 5 do
			publish(group, "msg-"..i)
			events.sleep(2)
		end
	end
end)
