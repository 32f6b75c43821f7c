-- wrk script for test/bench/http.ts. Configured through environment variables, because wrk decides
-- at load time (before init) whether the script is dynamic:
--   BENCH_MODE   get | getn | create | update | delete | echo
--   BENCH_PATH   the collection path (create), the object path (get, echo), or the collection path
--                that names are appended to (getn, update, delete)
--   BENCH_BODY   a file with the request body; "__NAME__" in it is replaced by the object's name and
--                "__SEQ__" by a number unique to the request (so that every update changes the object:
--                the registry skips the write of an update that changes nothing)
--   BENCH_PREFIX object names are BENCH_PREFIX .. n (create, update, delete)
--   BENCH_COUNT  update: cycle through n = 0 .. COUNT-1; getn: a random n in 0 .. COUNT-1 per
--                request; create, delete: take names n < COUNT, then stop (0 or unset: no limit)
-- done() prints one line "RESULT {json}" with counts and latency percentiles in µs.
--
-- Two wrk 4.1 details shape this script:
-- - wrk calls request() once before the run to check the script (script_verify_request); that call
--   takes name n = 0, which is never sent. Names that reach the server are n = 1 .. sent - 1.
-- - thread:stop() ends the requests but wrk still sleeps for the whole -d duration and reports it, so
--   count-limited runs time themselves: "activeUs" is first real request() to stop (LuaJIT's ffi).

local mode = os.getenv("BENCH_MODE") or "get"
local path = os.getenv("BENCH_PATH") or "/"
local prefix = os.getenv("BENCH_PREFIX") or "b-"
local count = tonumber(os.getenv("BENCH_COUNT") or "0") or 0
local bodyFile = os.getenv("BENCH_BODY")

-- The body split around its placeholders: parts[1] __NAME__ parts[2] __SEQ__ parts[3] (each
-- placeholder optional, in that order).
local parts = { "", "", "" }
if bodyFile ~= nil and bodyFile ~= "" then
  local f = assert(io.open(bodyFile, "rb"))
  local body = f:read("*a")
  f:close()
  local rest, i = body, 1
  for _, mark in ipairs({ "__NAME__", "__SEQ__" }) do
    local s, e = string.find(rest, mark, 1, true)
    if s then
      parts[i] = string.sub(rest, 1, s - 1)
      rest = string.sub(rest, e + 1)
      i = i + 1
    end
  end
  parts[i] = rest
end
local function body(name, seq)
  return parts[1] .. name .. parts[2] .. seq .. parts[3]
end

local json = { ["Content-Type"] = "application/json", ["Accept"] = "application/json" }
local accept = { ["Accept"] = "application/json" }
-- Requests authenticate with a static bearer token when one is given (both servers get it).
local token = os.getenv("BENCH_TOKEN")
if token and token ~= "" then
  json["Authorization"] = "Bearer " .. token
  accept["Authorization"] = "Bearer " .. token
  wrk.headers["Authorization"] = "Bearer " .. token
end

local ffi = require("ffi")
ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *ts);
]])
local ts = ffi.new("bench_timespec")
local function nowUs()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) / 1e3
end

-- Read by done() through thread:get: request() calls (names taken), and for count-limited runs the
-- monotonic time of the first real request and of the stop.
sent = 0
t0 = 0
tStop = 0

local function take()
  local n = sent
  sent = sent + 1
  if n == 1 then t0 = nowUs() end
  if count > 0 and sent >= count and tStop == 0 then
    tStop = nowUs()
    wrk.thread:stop()
  end
  return n
end

if mode == "get" then
  wrk.method = "GET"
  wrk.path = path
  wrk.headers["Accept"] = "application/json"
elseif mode == "getn" then
  -- Seeded, so that both sides of a pair read the same sequence of names.
  math.randomseed(12345)
  request = function()
    return wrk.format("GET", path .. "/" .. prefix .. math.random(0, count - 1), accept)
  end
elseif mode == "echo" then
  wrk.method = "POST"
  wrk.path = path
  wrk.body = body("", "")
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json"
elseif mode == "create" then
  request = function()
    local n = take()
    return wrk.format("POST", path, json, body(prefix .. n, n))
  end
elseif mode == "update" then
  request = function()
    local n = sent
    sent = sent + 1
    local name = prefix .. (n % count)
    return wrk.format("PUT", path .. "/" .. name, json, body(name, n))
  end
elseif mode == "delete" then
  request = function()
    local name = prefix .. take()
    return wrk.format("DELETE", path .. "/" .. name, accept)
  end
else
  error("unknown BENCH_MODE " .. mode)
end

-- Status codes other than 2xx, counted for the write modes (rates there are low enough that the
-- per-response callback costs wrk nothing that matters; the read modes keep wrk's fast path).
statuses = {}
if mode == "create" or mode == "update" or mode == "delete" then
  response = function(status, headers, body)
    if status >= 300 then statuses[status] = (statuses[status] or 0) + 1 end
  end
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local total, active = 0, summary.duration
  for _, t in ipairs(threads) do
    total = total + (t:get("sent") or 0)
    local first, stop = t:get("t0") or 0, t:get("tStop") or 0
    if stop > 0 and first > 0 then active = stop - first end
  end
  local codes = {}
  for _, t in ipairs(threads) do
    for status, n in pairs(t:get("statuses") or {}) do
      codes[#codes + 1] = string.format('"%d":%d', status, n)
    end
  end
  local e = summary.errors
  io.write(string.format(
    'RESULT {"durationUs":%d,"activeUs":%d,"requests":%d,"bytes":%d,"sent":%d,"connectErrors":%d,"readErrors":%d,' ..
      '"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"meanUs":%.1f,"p50Us":%d,"p90Us":%d,' ..
      '"p99Us":%d,"maxUs":%d,"statuses":{%s}}\n',
    summary.duration, active, summary.requests, summary.bytes, total, e.connect, e.read, e.write, e.status,
    e.timeout, latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, table.concat(codes, ",")))
end
