local queue = require "splaylab.queue"

describe("splaylab.queue", function()
  it("is first in, first out", function()
    local q = queue.new()
    assert.is_true(q:empty())
    q:push(1); q:insert(2); q:push(3)
    assert.equal(3, q:size())
    assert.equal(1, q:peek())
    assert.same({ 1, 2, 3 }, { q:pop(), q:remove(), q:pop() })
    assert.is_nil(q:pop())
    assert.is_true(q:empty())
  end)
end)
