--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 8
END SPLAY RESOURCES RESERVATION
]]
-- Pastry, written like SPLAY's pastry.lua (and pastry-new.lua's ids in base 2^b): node ids are
-- the first 128 bits of a SHA-1 digest in hexadecimal, the leaf set's range is tested with
-- misc.between_c(num(key), min - 1, max + 1) as SPLAY's range_leaf does (for a 128-bit id the
-- three are one double: an empty leaf set must hold no key, SPLAY's between_c), the rendezvous
-- is job.nodes[1], and rpc.a_call is wrapped the way pastry.lua's NAT support wraps it, passing
-- Lua 5.0's implicit `arg` on. Ours: each node routes 5 keys at 20 s and logs the node reached.
-- Read by sandbox/tests/test_splay_apps.py.
require"splay.base"
rpc = require"splay.rpc"
crypto = require"crypto"
evp, thread, call, time = crypto.evp, events.thread, rpc.call, misc.time

log.global_level = 2

tr, ti, sub = table.remove, table.insert, string.sub
b, leaf_size, bits = 4, 4, 128   -- a leaf set smaller than the job: it never wraps the ring
A, R, Li, Ls = {}, {}, {}, {}
g_timeout, check_time = 10, 3
key_s = bits / b
insert_l, L_l = events.lock(), events.lock()
for i = 0, key_s - 1 do R[i] = {} end

-- pastry-new.lua's "part of misc", on math.mod as Lua 5.0 named it
function dec_to_base(input, base)
	if input == 0 then return "0" end
	local k, out, d = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", ""
	while input > 0 do
		input, d = math.floor(input / base), math.mod(input, base) + 1
		out = sub(k, d, d)..out
	end
	return out
end

function compute_id(o) return sub(evp.new("sha1"):digest(o), 1, bits / 4) end
function num(k)
	if k.id then return tonumber("0x"..k.id) else return tonumber("0x"..k) end
end
function diff(key1, key2)
	local k1, k2, a, c = num(key1), num(key2)
	if k1 < k2 then a, c = k2, k1 else a, c = k1, k2 end
	return math.min(a - c, 2^bits - a + c)
end
function shl(a, c)
	for i = 1, key_s do
		if sub(a, i, i) ~= sub(c, i, i) then return i - 1 end
	end
	return key_s
end
function row_col(key)
	local row = shl(key, A.id)
	return row, num(sub(key, row + 1, row + 1))
end

function leafs()
	L_l:lock()
	local L = misc.dup(Li)
	for _, e in pairs(Ls) do
		local found = false
		for _, e2 in pairs(Li) do
			if e.id == e2.id then found = true break end
		end
		if not found then L[#L + 1] = e end
	end
	L_l:unlock()
	return L
end

function range_leaf(D) -- including ourself in the range, as SPLAY's pastry.lua
	local min, max = num(A), num(A)
	L_l:lock()
	if #Li > 0 then min = num(Li[#Li]) end
	if #Ls > 0 then max = num(Ls[#Ls]) end
	L_l:unlock()
	return misc.between_c(num(D), min - 1, max + 1)
end

function nearest(D, nodes)
	local d, j = math.huge, nil
	for i, n in pairs(nodes) do
		if diff(D, n) < d then d, j = diff(D, n), i end
	end
	return nodes[j]
end

-- insert_one_leaf: Li holds the closest smaller ids, Ls the closest greater ones
function iol(node, leaf, sup)
	for i = 1, leaf_size / 2 do
		if leaf[i] then
			if node.id == leaf[i].id then return false end
			if (not sup and misc.between_c(num(node), num(leaf[i]), num(A))) or
				(sup and misc.between_c(num(node), num(A), num(leaf[i]))) then
				ti(leaf, i, node)
				while #leaf > leaf_size / 2 do tr(leaf) end
				return i
			end
		else
			leaf[i] = node
			return i
		end
	end
	return false
end

function insert(node, notify) thread(function() insert_t(node, notify) end) end
function insert_t(node, notify)
	if not node or not node.id or node.id == A.id then return end
	insert_l:lock()
	L_l:lock()
	local r1, r2 = iol(node, Li, false), iol(node, Ls, true)
	L_l:unlock()
	local row, col = row_col(node.id)
	local r3 = not R[row][col]
	if r3 then R[row][col] = node end
	insert_l:unlock()
	if (r1 or r2 or r3) and not notify then
		call(node, {'notify', A}, g_timeout)
	end
end

function join(node)
	local r, err = call(node, {'route', {typ = "#join#"}, A.id}, g_timeout)
	if not r then return nil, err end
	for _, e in pairs(r) do insert(e) end
	return true
end

function try_route(msg, key, T)
	local ok, n = rpc.a_call(T, {'route', msg, key}, g_timeout)
	if ok then
		if msg.typ == "#join#" and n[1] then
			ti(n[1], A)
			for _, e in pairs(leafs()) do ti(n[1], e) end
		end
		return unpack(n)
	end
	log:warning("cannot route through "..T.id)
end

function route(msg, key) -- Pastry API
	if key ~= A.id then
		if range_leaf(key) then
			local n = nearest(key, leafs())
			if diff(n, key) < diff(A, key) then return try_route(msg, key, n) end
		else
			local row, col = row_col(key)
			if R[row][col] then return try_route(msg, key, R[row][col]) end
			for r = row, key_s - 1 do
				for _, n in pairs(R[r]) do
					if diff(n, key) < diff(A, key) then return try_route(msg, key, n) end
				end
			end
			for _, n in pairs(leafs()) do
				if shl(n.id, key) >= row and diff(n, key) < diff(A, key) then
					return try_route(msg, key, n)
				end
			end
		end
	end
	if msg.typ == "#join#" then return {A, unpack(leafs())} end
	return A
end

function do_leaf(node)
	local r = call(node, 'leafs', g_timeout)
	if r then for _, n in pairs(r) do insert(n) end end
end

function check_daemon()
	local pos = 1
	while events.sleep(check_time) do
		local L = leafs()
		if pos < #L then pos = pos + 1 else pos = 1 end
		if L[pos] then do_leaf(L[pos]) end
	end
end

-- RPC aliases
function notify(node) insert(node, true) return true end

function lookups()
	for i = 1, 5 do
		local key = compute_id("key "..job.position.." "..i)
		local reached = route({typ = "#test#"}, key)
		log:print("lookup key="..key.." owner="..(reached and reached.id or "none"))
	end
end

A = job.me
A.id = compute_id(A.ip..":"..A.port)
rdv = job.nodes[1]

-- pastry.lua's NAT support: the low level rpc.a_call wrapped, its extra arguments as `arg`
if string.sub(A.ip, 1, 3) ~= "10." then
	rpc.a_call_ori = rpc.a_call
	rpc.a_call = function(n, ...)
		local node = misc.dup(n)
		if type(node) == "table" and string.sub(node.ip, 1, 3) == "10." then
			node.ip = "192.42.43.30"
		end
		return rpc.a_call_ori(node, unpack(arg))
	end
end

events.loop(function()
	local start = misc.time()
	if not rpc.server(A.port) then
		log:error("RPC bind error: "..A.port)
		return
	end
	log:print("ID "..A.id.." prefix4 "..dec_to_base(tonumber("0x"..sub(A.id, 1, 8)), 4))
	if job.position > 1 then
		events.sleep(1 + job.position / 2)
		local ok, err = join(rdv)
		if not ok then log:error("cannot join "..tostring(err)) end
	end
	thread(check_daemon)
	events.sleep(start + 20 - misc.time())
	lookups()
end)
