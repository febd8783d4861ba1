-- wrk script: POST /api/events/ingest, one event per request, each with a unique eventId,
-- attributed to one of the seeded customers (bench-<n>@example.com).
-- Environment: BENCH_KEY (machine key, required), BENCH_CUSTOMERS (default 1000),
-- BENCH_RUN (eventId prefix, default the start time).
local key = os.getenv("BENCH_KEY")
local customers = tonumber(os.getenv("BENCH_CUSTOMERS") or "1000")
local run = os.getenv("BENCH_RUN") or tostring(os.time())
local threads = {}
local thread_seq = 0

function setup(thread)
  thread_seq = thread_seq + 1
  thread:set("tid", thread_seq)
  table.insert(threads, thread)
end

function init(args)
  if key == nil or key == "" then
    error("BENCH_KEY is not set")
  end
  n = 0
  non200 = 0
  math.randomseed(os.time() + tid)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. key
end

function request()
  n = n + 1
  local body = string.format(
    '{"customerEmail":"bench-%d@example.com","type":"feature.used","eventId":"%s-%d-%d","payload":{"feature":"export","seats":%d,"plan":"pro"}}',
    math.random(0, customers - 1), run, tid, n, n % 50)
  return wrk.format(nil, "/api/events/ingest", nil, body)
end

function response(status, headers, body)
  if status ~= 200 then
    non200 = non200 + 1
    if non200 <= 3 then
      io.stderr:write("status " .. status .. ": " .. body .. "\n")
    end
  end
end

function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do
    bad = bad + (t:get("non200") or 0)
  end
  io.write(string.format("requests %d, non-200 %d, errors connect %d read %d write %d timeout %d status %d\n",
    summary.requests, bad, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout, summary.errors.status))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("latency p%g %.2f ms\n", p, latency:percentile(p) / 1000))
  end
  io.write(string.format("rate %.0f req/s\n", summary.requests / (summary.duration / 1e6)))
end
