--[[
splaylab.env_rules - the data of the sandbox's environment (splaylab.env): what student code
gets of the runtime's globals, and every name left out or replaced with the reason. Data only,
never changed: a simulation loads it once for all its nodes (sim.lua's SHARED modules).
]]
local M = {}

-- What student code gets from the runtime's globals, as is.
M.ALLOW = {
  "_VERSION", "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget",
  "rawset", "select", "tonumber", "tostring", "type", "unpack", "xpcall", "setmetatable",
  "coroutine.*", "string.*", "table.*", "math.*", "bit.*",
  "os.time", "os.clock", "os.date", "os.difftime",
  "debug.traceback",
}

-- Every name left out or replaced, with the reason.
M.EXCLUDE = {
  ffi = "the FFI is not safe for untrusted code (LuaJIT docs): raw memory access and C calls",
  jit = "controls the JIT compiler; jit.util inspects bytecode and machine code",
  package = "package.loadlib loads native code and package.loaded reaches every runtime module",
  module = "the Lua 5.1 module system writes into package.loaded",
  newproxy = "creates userdata with a shared metatable",
  ["string.dump"] = "produces bytecode; LuaJIT does not verify bytecode, crafted bytecode corrupts memory",
  ["debug.debug"] = "interactive console on stdin",
  ["debug.getfenv"] = "reaches the environment of runtime functions",
  ["debug.setfenv"] = "changes the environment of runtime functions",
  ["debug.gethook"] = "inspects hooks", ["debug.sethook"] = "installs hooks into the runtime",
  ["debug.getinfo"] = "reaches runtime functions on the stack",
  ["debug.getlocal"] = "reads the runtime's locals", ["debug.setlocal"] = "writes the runtime's locals",
  ["debug.getupvalue"] = "reads the runtime's upvalues", ["debug.setupvalue"] = "writes the runtime's upvalues",
  ["debug.upvalueid"] = "inspects closures", ["debug.upvaluejoin"] = "rewires closures",
  ["debug.getmetatable"] = "reaches the shared string metatable and protected metatables",
  ["debug.setmetatable"] = "changes metatables of every string, number and function",
  ["debug.getregistry"] = "the registry holds every loaded module",
  ["os.execute"] = "runs a host command",
  ["os.exit"] = "ends the process without the runtime's report; use events.exit()",
  ["os.getenv"] = "leaks the host's environment",
  ["os.remove"] = "deletes host files (node.lua gives a version confined to the node's directory)",
  ["os.rename"] = "moves host files (node.lua gives a version confined to the node's directory)",
  ["os.tmpname"] = "creates host files", ["os.setlocale"] = "changes process-wide state",
  ["io.popen"] = "runs a host command",
  ["io.open"] = "replaced by the confined version of splaylab.fs when the runtime gives one",
  ["io.lines"] = "replaced by the confined version of splaylab.fs when the runtime gives one",
  ["io.input"] = "redirects the default input to a host file",
  ["io.output"] = "redirects the default output away from the log",
  ["io.close"] = "replaced by the confined version of splaylab.fs when the runtime gives one",
  ["io.tmpfile"] = "creates host files",
  ["io.type"] = "replaced by the confined version of splaylab.fs when the runtime gives one",
  ["io.stdin"] = "stdin is not connected",
  ["io.stdout"] = "raw stdout would forge log records; use print or io.write",
  ["io.stderr"] = "raw stderr; use log.error",
  -- replaced by safe variants (see REPLACED)
  require = "only the sandbox's own modules (splay.*) and the standard libraries",
  load = "text chunks only, environment forced to the sandbox's",
  loadstring = "text chunks only, environment forced to the sandbox's",
  loadfile = "text only, relative paths inside the node's directory",
  dofile = "text only, relative paths inside the node's directory",
  getfenv = "never returns the runtime's global table (getfenv(0).os would leak it)",
  setfenv = "cannot change the environment of runtime functions or threads",
  getmetatable = "the shared string metatable is not reachable",
  collectgarbage = "only collectgarbage('count') and a full collect (collectgarbage() or 'collect'): "
    .. "stopping or tuning the collector would act on the runtime (on every node, in a simulation)",
  gcinfo = "the memory in use in KB, as collectgarbage('count') (SPLAY's bt.lua and chord_p.lua print it)",
  print = "writes level-print records",
  io = "io.write (print records), io.read (returns nil) and the confined io.open/lines/close/type",
}

return M
