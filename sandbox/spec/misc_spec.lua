local misc = require "splaylab.misc"

describe("splaylab.misc", function()
  describe("between_c", function()
    it("with 3 arguments is the open circular interval", function()
      assert.is_true(misc.between_c(5, 1, 10))
      assert.is_false(misc.between_c(1, 1, 10))
      assert.is_false(misc.between_c(10, 1, 10))
      assert.is_true(misc.between_c(12, 10, 3))
      assert.is_true(misc.between_c(1, 10, 3))
      assert.is_false(misc.between_c(5, 10, 3))
      assert.is_true(misc.between_c(4, 7, 7))   -- a == b: the whole ring but a
      assert.is_false(misc.between_c(7, 7, 7))
    end)
    it("with 5 arguments includes the bounds asked for (the paper's Listing 1)", function()
      assert.is_true(misc.between_c(10, 1, 10, false, true))
      assert.is_false(misc.between_c(10, 1, 10, false, false))
      assert.is_true(misc.between_c(1, 1, 10, true, false))
      assert.is_true(misc.between_c(7, 7, 7, false, true))
    end)
  end)

  it("picks, shuffles and copies", function()
    local t = { 1, 2, 3, 4, 5 }
    local one = misc.random_pick(t)
    assert.is_true(one >= 1 and one <= 5)
    local three = misc.random_pick(t, 3)
    assert.equal(3, #three)
    assert.equal(5, #misc.random_pick(t, 10))
    local seen = {}
    for _, v in ipairs(three) do assert.is_nil(seen[v]); seen[v] = true end
    assert.is_nil(misc.random_pick_one({}))
    local s = misc.shuffle(t)
    table.sort(s)
    assert.same(t, s)
    local deep = { a = { b = 1 } }
    local d = misc.dup(deep)
    d.a.b = 2
    assert.equal(1, deep.a.b)
  end)

  it("splits, sizes and merges", function()
    assert.same({ "a", "b", "", "c" }, misc.split("a,b,,c", ","))
    assert.same({ "a.b" }, misc.split("a.b", ","))
    assert.equal(2, misc.size({ x = 1, y = 2 }))
    assert.is_true(misc.empty({}))
    assert.is_false(misc.empty({ 1 }))
    assert.same({ 1, 2, 3, x = 2 }, misc.merge({ 1, x = 1 }, { 2, 3, x = 2 }))
    assert.is_number(misc.time())
  end)
end)
