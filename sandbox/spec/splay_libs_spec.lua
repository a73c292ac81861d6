-- SPLAY's smaller libraries (docs/splay-compat.md): bits, data_bits, token_bucket, lbinenc,
-- async_dns, topo_socket and LuaCrypto's API (crypto), each against SPLAY's documented results.
local platform = require "splaylab.platform"

describe("splay.bits", function()
  local bits = require "splaylab.bits"
  it("turns strings into bit tables, most significant bit first, and back", function()
    local t = bits.ascii_to_bits("A")
    assert.same({ false, true, false, false, false, false, false, true }, t)
    assert.equal("hi", bits.bits_to_ascii(bits.ascii_to_bits("hi")))
    assert.equal(3, #bits.ascii_to_bits("\255\255", 3))
    assert.equal("01000001 ", bits.show_bits("A"))
    assert.equal(8, bits.count("\255"))
    assert.equal(16, bits.size("ab"))
    assert.is_true(bits.is_set("A", 2))
    local b = {}
    bits.init(b, 4)
    bits.set(b, 2)
    assert.same({ false, true, false, false }, b)
  end)
end)

describe("splay.data_bits", function()
  local db = require "splaylab.data_bits"
  it("sets, reads and counts bits from bit 0, the least significant of the first byte", function()
    local s = db.set_bit("\0\0", 9)
    assert.equal("\0\2", s)
    assert.equal(1, db.get_bit(s, 9))
    assert.equal(0, db.get_bit(s, 8))
    assert.equal("\0\0", db.unset_bit(s, 9))
    assert.equal(9, db.cardinality("\255\1"))
    assert.equal("\255\254", db.dnot("\0\1"))
    assert.equal("\3", db.dor("\1", "\2"))
    assert.equal("\0", db.dand("\1", "\2"))
  end)
  it("packs the positions of the 1s (1 byte up to 256 bits, 2 bytes above) and unpacks them", function()
    local small = db.from_string("16 0 9 15")
    assert.equal("\0\9\15", db.pack(small))
    assert.equal(small, db.unpack(db.pack(small), 2))
    local big = db.set_bit(string.rep("\0", 64), 300)
    assert.equal("\1\44", db.pack(big))
    assert.equal(big, db.unpack("\1\44", 64))
  end)
  it("answers bad arguments with nil and SPLAY's message", function()
    assert.same({ nil, "invalid position" }, { db.set_bit("\0", 8) })
    assert.same({ nil, "length of strings is not equal" }, { db.dor("a", "ab") })
    assert.same({ nil, "max 128kbits (/ 8) bloomfilter" }, { db.from_string("12 1") })
    assert.same({ nil, "invalid position" }, { db.from_string("8 8") })
  end)
end)

describe("splay.token_bucket", function()
  local tb = require "splaylab.token_bucket"
  local real_now
  before_each(function() real_now = platform.now end)
  after_each(function() platform.now = real_now end)
  it("starts with tokens * 1000, refills at its rate up to its capacity when asked", function()
    local t = 100
    platform.now = function() return t end
    local b = tb.new(1, 10, 1500)
    assert.equal(1000, b.get_tokens())
    assert.is_true(b.consume(600))
    assert.is_false(b.consume(500))
    t = 110
    assert.equal(500, b.get_tokens())
    t = 200
    assert.equal(1400, b.get_tokens())
    t = 1000
    assert.equal(1500, b.get_tokens())
  end)
end)

describe("splay.lbinenc", function()
  local lbinenc = require "splaylab.lbinenc"
  it("round-trips nested Lua values through binary strings", function()
    local v = { 1, "two", { three = true, [4] = 4.5 }, [10] = "ten" }
    assert.same(v, lbinenc.decode(lbinenc.encode(v)))
    assert.equal("x", lbinenc.decode(lbinenc.encode("x")))
  end)
  it("refuses bytes that are not an encoded value", function()
    assert.has_error(function() lbinenc.decode("\193") end)
  end)
end)

describe("splay.async_dns", function()
  local dns = require "splaylab.async_dns"
  it("answers from the job's table only, never the host's resolver", function()
    dns.init { me_position = 2, nodes = { { ip = "127.0.0.2", port = 1 }, { ip = "127.0.0.3", port = 1 } } }
    assert.equal("127.0.0.3", (dns.toip("node2")))
    assert.equal("node1", (dns.tohostname("127.0.0.2")))
    assert.equal("node2", dns.gethostname())
    assert.equal("10.1.2.3", (dns.toip("10.1.2.3")))
    assert.same({ nil, "host not found" }, { dns.toip("localhost.localdomain") })
    assert.same({ nil, "host not found" }, { dns.toip("example.com") })
    assert.same({ nil, "host not found" }, { dns.tohostname("10.9.9.9") })
  end)
  it("reads the simulator's address index", function()
    dns.init { me_position = 1, addresses = { ["127.1.0.5:20000"] = 5, ["127.1.0.5:20001"] = 5 } }
    assert.equal("127.1.0.5", (dns.toip("node5")))
    assert.equal("node5", (dns.tohostname("127.1.0.5")))
  end)
end)

describe("splay.topo_socket", function()
  local ts = require "splaylab.topo_socket"
  it("initialises once and leaves the socket to the job's network model", function()
    assert.is_true(ts.init({}, {}, nil, 1))
    assert.same({ false, "init() already called" }, { ts.init({}, {}, nil, 1) })
    local sock = {}
    assert.equal(sock, ts.wrap(sock))
  end)
end)

describe("crypto (LuaCrypto's API on luaossl)", function()
  local crypto = require "splaylab.crypto"
  it("digests as OpenSSL does, in hex or raw", function()
    assert.equal("a9993e364706816aba3e25717850c26c9cd0d89d", crypto.evp.digest("sha1", "abc"))
    assert.equal("d41d8cd98f00b204e9800998ecf8427e", crypto.evp.digest("md5", ""))
    assert.equal(20, #crypto.evp.digest("sha1", "abc", true))
    assert.equal("102900b72b7bf1031eec76b4804b66052376896b", crypto.hmac.digest("sha1", "msg", "key"))
  end)
  it("keeps an object open after digest, as LuaCrypto's evp does", function()
    local d = crypto.evp.new("sha1")
    d:update("a"):update("b")
    local c = d:clone()
    assert.equal(crypto.evp.digest("sha1", "ab"), d:digest())
    assert.equal(crypto.evp.digest("sha1", "abc"), d:digest("c"))
    assert.equal(crypto.evp.digest("sha1", "abd"), c:digest("d"))
    d:reset()
    assert.equal(crypto.evp.digest("sha1", ""), d:digest())
    local h = crypto.hmac.new("sha1", "key")
    assert.equal("102900b72b7bf1031eec76b4804b66052376896b", h:update("msg"):digest())
  end)
  it("refuses an unknown digest type by name", function()
    assert.has_error(function() crypto.evp.new("nope") end, "bad argument #1 to 'new' (invalid digest type 'nope')")
  end)
  it("hands out no OpenSSL object", function()
    local d = crypto.evp.new("sha1")
    assert.equal("LuaCrypto EVP", getmetatable(d))
    for _, v in pairs({ d, crypto.evp, crypto.hmac, crypto.rand }) do
      for _, f in pairs(type(v) == "table" and v or {}) do assert.not_equal("userdata", type(f)) end
    end
  end)
  it("draws random bytes from a generator of its own, not the app's math.random", function()
    math.randomseed(5)
    local before = math.random()
    math.randomseed(5)
    local a = crypto.rand.bytes(16)
    assert.equal(16, #a)
    assert.not_equal(a, crypto.rand.bytes(16))
    assert.equal(before, math.random())
  end)
end)
