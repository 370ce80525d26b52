-- wrk's script for the benchmark (wrk.ts): each thread cycles through its share of the requests
-- written beforehand to WRK_REQUESTS, one a line (a header name, its value and the body, separated
-- by tabs; the body's line breaks written as \1), counts the answers equal to WRK_EXPECT when set,
-- and done() prints the figures as one JSON line, WRK_RESULT {...}, for wrk.ts to read. With
-- WRK_UNIQUE set, that mark in a body is replaced as each request is sent by WRK_UNIQUE_PREFIX, the
-- thread and the thread's count of requests: a key no other request of any window carries.
local file = os.getenv("WRK_REQUESTS")
local expect = os.getenv("WRK_EXPECT")
local threadCount = tonumber(os.getenv("WRK_THREADS"))
local unique = os.getenv("WRK_UNIQUE")
if unique == "" then unique = nil end
local prefix = os.getenv("WRK_UNIQUE_PREFIX")
wrk.method = os.getenv("WRK_METHOD")

local threads = {}
function setup(thread)
  thread:set("index", #threads)
  table.insert(threads, thread)
end

local requests, position = {}, 1
expected, other = 0, 0

function init(args)
  local i = 0
  for line in io.lines(file) do
    if i % threadCount == index then
      local name, value, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
      body = body:gsub("\1", "\n")
      local headers = {}
      for k, v in pairs(wrk.headers) do headers[k] = v end
      if name ~= "" then headers[name] = value end
      local at = unique and body:find(unique, 1, true)
      if at then
        -- Formatted as it is sent: the parts of the body either side of the mark.
        table.insert(requests, { headers = headers, before = body:sub(1, at - 1), after = body:sub(at + #unique) })
      else
        table.insert(requests, wrk.format(nil, nil, headers, body ~= "" and body or nil))
      end
    end
    i = i + 1
  end
end

local sent = 0
function request()
  local next = requests[position]
  position = position % #requests + 1
  if type(next) == "string" then return next end
  sent = sent + 1
  return wrk.format(nil, nil, next.headers, next.before .. prefix .. "-" .. index .. "-" .. sent .. next.after)
end

if expect ~= nil and expect ~= "" then
  function response(status, headers, body)
    if status == 200 and body == expect then expected = expected + 1 else other = other + 1 end
  end
end

function done(summary, latency, _)
  local e, o = 0, 0
  for _, thread in ipairs(threads) do
    e = e + thread:get("expected")
    o = o + thread:get("other")
  end
  local errors = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"non2xx":%d,"errors":%d,"expected":%d,"other":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), errors.status,
    errors.connect + errors.read + errors.write + errors.timeout, e, o))
end
