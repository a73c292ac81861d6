-- splaylab.sim.kernel's poll (the events loop's wait) answers from the sockets it was told of
-- (made readable, closed, or newly waited on) what a walk over every socket waited on would
-- answer: exactly the ready ones, in creation order, a socket made ready then drained not.
local kernel = require "splaylab.sim.kernel"

local function by_id(a, b) return a.id < b.id end

-- What the walk gave: every key of readers that is readable, by creation order.
local function walk(readers)
  local out = {}
  for s in pairs(readers) do if s:readable() then out[#out + 1] = s end end
  table.sort(out, by_id)
  return out
end

local function ids(list)
  local out = {}
  for i, s in ipairs(list or {}) do out[i] = s.id end
  return out
end

local function run_node(main)
  local errors = {}
  local k
  k = kernel.new{ start_node = function(node) main(k, node) end,
    emit = function(_, _, level, text) if level == "error" then errors[#errors + 1] = text end end }
  local other = k:start(2, { ip = "10.0.0.2" })   -- holds the other ends of the links
  other.co = coroutine.create(function() coroutine.yield(kernel.WAIT) end)
  k.other = other
  k:start(1, { ip = "10.0.0.1" })
  k:run(100)
  assert.same({}, errors)
end

describe("sim.kernel poll", function()
  it("reports what a walk would, under random puts, takes, closes and waits", function()
    for seed = 1, 10 do
      local checked = 0
      run_node(function(k, node)
        math.randomseed(seed)
        local p, net = node.platform, k.net
        local mine, theirs, readers = {}, {}, {}
        for i = 1, 12 do mine[i], theirs[i] = net:link(node, k.other) end
        assert.is_nil(p.poll(readers, {}, nil, 0))   -- the first poll (walks)
        for _ = 1, 400 do
          local i, r = math.random(12), math.random(7)
          local b = mine[i]
          if r == 1 then b:put("x")
          elseif r == 2 then b:take()
          elseif r == 3 and not readers[b] then readers[b] = true; p.watch(b)   -- a thread waits
          elseif r == 4 then readers[b] = nil                                   -- it stops waiting
          elseif r == 5 and math.random(8) == 1 then theirs[i]:close()          -- peer: end of stream
          elseif r == 6 and math.random(8) == 1 then b:close()                  -- its own node closes it
          else
            local expect = walk(readers)
            local got = p.poll(readers, {}, nil, 0)
            assert.same(ids(expect), ids(got))
            for _, s in ipairs(got or {}) do
              assert.is_true(got[s])
              readers[s] = nil   -- its thread wakes and stops waiting on it
            end
            checked = checked + 1
          end
        end
      end)
      assert.is_true(checked > 20)
    end
  end)

  it("wakes a node blocked in poll when a socket it waits on becomes ready", function()
    local got, at
    run_node(function(k, node)
      local p = node.platform
      local a, b = k.net:link(node, k.other)
      local c = k.net:link(node, k.other)
      local readers = { [a] = true, [c] = true }
      assert.is_nil(p.poll(readers, {}, nil, 0))
      k:at(3, function() c:put(1); b:put(2) end)   -- b is the other end: a's peer, not a
      got = p.poll(readers, {}, nil, 50)
      at = k.now
    end)
    assert.equal(3, at)
    assert.equal(1, #got)
  end)
end)
