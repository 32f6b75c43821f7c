-- wrk script for test/bench/protobuf.ts: GET of BENCH_PATH with the Accept header BENCH_ACCEPT and
-- a bearer token BENCH_TOKEN (a static request, so wrk keeps its fast path). done() prints one line
-- "RESULT requests durationUs statusErrors p50Us p99Us bytes".
wrk.method = "GET"
wrk.path = os.getenv("BENCH_PATH") or "/"
wrk.headers["Accept"] = os.getenv("BENCH_ACCEPT") or "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("BENCH_TOKEN") or "")

done = function(summary, latency, requests)
  io.write(string.format(
    "RESULT %d %d %d %d %d %d\n",
    summary.requests,
    summary.duration,
    summary.errors.status,
    latency:percentile(50),
    latency:percentile(99),
    summary.bytes
  ))
end
