--[[
BEGIN SPLAY RESOURCES RESERVATION
nb_splayds 8
list_type head
list_size 0
END SPLAY RESOURCES RESERVATION
]]
--[[
	A BitTorrent-like swarm, written like SPLAY's bt.lua: BitTorrent's wire protocol (68-byte
	handshake, length-prefixed messages built with misc.to_string, bitfields with splay.bits,
	blocks checked with crypto's SHA-1), one thread sending and one receiving per peer, woken by
	events.fire(s) / events.wait(s, 5) on the socket itself, blocks written to files.
	Like bt.lua it is Lua 5.1 source: the "\d"-style escapes of its patterns are read as Lua 5.1
	read them (SplayLab warns about each line). Ours: no tracker or .torrent over HTTP (a test
	fetches nothing): the torrent is built from a seed every node knows, node 1 is the seeder,
	and the peers are job.nodes. Read by sandbox/tests/test_splay_apps.py.
--]]

--[[ Libraries ]]--
require"splay.base"
net = require"splay.net"
crypto = require"crypto"
bits = require"splay.bits"
queue = require"splay.queue"
to_int, to_string = misc.to_int, misc.to_string

log.global_level = 2

--[[ Global vars ]]--
peer_id = string.sub("LUA01-----"..math.random(1000000000, 9999999999).."----------", 1, 20)
torrent = {info = {length = 12 * 4096 + 1000, ['piece length'] = 4096, name = "splay.iso"}}
hash = crypto.evp.digest("sha1", "splaylab swarm "..torrent.info.length)
peers = {}
nb_blocks, last_block_length = 0, 0
blocks = {data = {}, bits = {}, shas = {}}
stats = {received = 0, sent = 0}
max_accept = 10
seeder = job.position == 1

-- the content of block i, the same on every node (our stand-in for the file being shared)
function block_content(i)
	local len = torrent.info['piece length']
	if i == nb_blocks then len = last_block_length end
	local seed = crypto.evp.digest("sha1", "block "..i)
	return string.sub(string.rep(seed, math.ceil(len / #seed)), 1, len)
end

function count_blocks()
	local c = 0
	for _, j in pairs(blocks.bits) do if j == true then c = c + 1 end end
	return c
end

function send_headers(s)
	local bp = "BitTorrent protocol"
	local h = string.char(string.len(bp))..bp..string.char(0, 0, 0, 0, 0, 0, 0, 0)
	for i = 1, string.len(hash), 2 do
		h = h..string.char(tonumber("0x"..string.sub(hash, i, i+1)))
	end
	return s:send(h..peer_id)
end

function send_msg(s, msg)
	if string.len(msg) >= 1 then
		log:debug(tonode(s), "SEND "..code_to_name(string.byte(string.sub(msg, 1, 1))))
	end
	return s:send(to_string(string.len(msg))..msg)
end
function send_unchoke(s) peers[s].i_choked = false return send_msg(s, "\1") end
function send_interested(s) peers[s].i_interested = true return send_msg(s, "\2") end
function send_have(s, piece_number) return send_msg(s, "\4"..to_string(piece_number - 1)) end
function send_bitfield(s) return send_msg(s, "\5"..bits.bits_to_ascii(blocks.bits)) end
function send_request(s, index, begin, length)
	return send_msg(s, "\6"..to_string(index - 1)..to_string(begin - 1)..to_string(length))
end
function send_piece(s, index, begin, piece)
	return send_msg(s, "\7"..to_string(index - 1)..to_string(begin - 1)..piece)
end

function assert_sock(s)
	local ori_send, ori_receive = s.send, s.receive
	s.send = function(...) return assert(ori_send(...)) end
	s.receive = function(...) return assert(ori_receive(...)) end
	s.recv_int = function(self, size) return to_int(self:receive(size or 4)) end
end

function tonode(s)
	if peers[s] then return peers[s].ip..":"..peers[s].port end
	return tostring(s)
end

function peer_fail(s)
	if peers[s] then
		log:info("Transmission ended with "..tonode(s))
		peers[s] = nil
	end
	s:close()
end

function peer_connect(ip, port)
	local s = socket.tcp()
	s:settimeout(30)
	if s:connect(ip, port) then
		peer_run(s, true)
	else
		log:notice("Cannot connect peer: "..ip..":"..port)
	end
end

function peer_run(s, connect)
	s:settimeout(120)
	local ip, port = s:getpeername()
	if not ip then return end
	if pcall(function()
		peers[s] = {choked = true, interested = false, i_choked = true, i_interested = false,
			bitfield = {}, block_request = false, sent = 0, received = 0,
			requests = queue.new(), have = queue.new(), ip = ip, port = port}
		for i = 1, nb_blocks do peers[s].bitfield[i] = false end
		assert_sock(s)
		if connect then
			send_headers(s)
			s:receive(68)
		else
			s:receive(68)
			send_headers(s)
		end
		send_bitfield(s)
	end) then
		events.thread(function() if not pcall(function() peer_send(s) end) then peer_fail(s) end end)
		events.thread(function() if not pcall(function() peer_receive(s) end) then peer_fail(s) end end)
	else
		return peer_fail(s)
	end
	while peers[s] do events.sleep(1) end
end

function peer_send(s)
	local p = peers[s]
	local curr_block = nil
	send_unchoke(s)
	send_interested(s)
	while peers[s] do
		while not p.have.empty() do send_have(s, p.have.get()) end
		if not p.i_choked and p.interested then
			while not p.requests.empty() do
				local r = p.requests.get()
				local f = assert(io.open("block_"..r.index, "r"))
				local data = assert(f:read("*a"))
				f:close()
				send_piece(s, r.index, r.begin, string.sub(data, r.begin, r.begin + r.length - 1))
				stats.sent = stats.sent + r.length
				p.sent = p.sent + r.length
			end
		end
		if not p.choked and p.i_interested and not p.block_request then
			if not curr_block or blocks.bits[curr_block] then
				local poss_blocks = {}
				for i = 1, nb_blocks do
					if p.bitfield[i] and not blocks.bits[i] then poss_blocks[#poss_blocks + 1] = i end
				end
				curr_block = #poss_blocks >= 1 and poss_blocks[math.random(1, #poss_blocks)] or nil
			end
			if curr_block then
				p.block_request = true
				local length = curr_block == nb_blocks and last_block_length or torrent.info['piece length']
				send_request(s, curr_block, 1, length)
			end
		end
		events.wait(s, 5) -- All done, we wait for something...
	end
end

function peer_receive(s)
	while true do
		local len = s:recv_int()
		if len > 0 then
			local mn = s:recv_int(1)
			if mn == 0 then peers[s].choked = true
			elseif mn == 1 then peers[s].choked = false
			elseif mn == 2 then peers[s].interested = true
			elseif mn == 3 then peers[s].interested = false
			elseif mn == 4 then
				peers[s].bitfield[s:recv_int() + 1] = true
			elseif mn == 5 then
				peers[s].bitfield = bits.ascii_to_bits(s:receive(len - 1), nb_blocks)
			elseif mn == 6 then
				local index, begin, length = s:recv_int() + 1, s:recv_int() + 1, s:recv_int()
				peers[s].requests.insert({index = index, begin = begin, length = length})
			elseif mn == 7 then
				local index = s:recv_int() + 1
				s:recv_int()
				local piece = s:receive(len - 9)
				stats.received = stats.received + string.len(piece)
				peers[s].block_request = false
				if not blocks.bits[index] then
					local h = crypto.evp.new("sha1"):digest(piece)
					if misc.hash_ascii_to_byte(h) == blocks.shas[index] then
						log:info(tonode(s), "Block "..index.." succefully received.")
						blocks.bits[index] = true
						local f = assert(io.open("block_"..index, "w"))
						assert(f:write(piece))
						f:close()
						for _, p in pairs(peers) do p.have.insert(index) end
						if count_blocks() == nb_blocks then
							log:print("complete blocks="..nb_blocks.." received="..stats.received)
						end
					else
						log:warning(tonode(s), "Block "..index.." has not the right hash, remove.")
					end
				end
			else
				log:warning(tonode(s), "Not understood command: "..code_to_name(mn))
				error("Unknown protocol")
			end
		end
		events.fire(s)
	end
end

function code_to_name(code)
	local names = {"choke", "unchoke", "interested", "not interested", "have", "bitfield",
		"request", "piece", "cancel", "port"}
	return names[code + 1] or tostring(code)
end

function summary()
	local n = 0
	for _ in pairs(peers) do n = n + 1 end
	log:print("summary blocks="..count_blocks().." peers="..n.." sent="..stats.sent..
		" received="..stats.received.." mem="..gcinfo().."ko")
end

function connect_peers()
	if misc.size(peers) < 4 then
		local n = misc.random_pick(job.nodes)
		-- We avoid IPv6 and ourself
		if string.match(n.ip, "^%d+\.%d+\.%d+\.%d+$") and
				not (n.ip == job.me.ip and n.port == job.me.port) then
			for _, p in pairs(peers) do
				if p.ip == n.ip and p.port == n.port then return end
			end
			events.thread(function() peer_connect(n.ip, n.port) end)
		end
	end
end

events.loop(function()
	nb_blocks = math.ceil(torrent.info.length / torrent.info['piece length'])
	last_block_length = torrent.info.length % torrent.info['piece length']
	if last_block_length == 0 then last_block_length = torrent.info['piece length'] end
	for i = 1, nb_blocks do
		local content = block_content(i)
		blocks.shas[i] = crypto.evp.digest("sha1", content, true)
		blocks.bits[i] = false
		if seeder then
			local f = assert(io.open("block_"..i, "w"))
			f:write(content)
			f:close()
			blocks.bits[i] = true
		end
	end
	log:info("Blocks: "..nb_blocks.." hash: "..hash)
	if not net.server(job.me, peer_run, max_accept) then
		log:error("Error listening on port "..job.me.port)
		return
	end
	events.sleep(1)
	events.periodic(5, summary)
	events.periodic(1, connect_peers)
end)
