-- wrk script: POST a 100-option pricing batch; counts the responses by status over all threads.
local options = {}
for i = 1, 100 do
  options[i] = string.format('{"spot":%d,"strike":100,"maturity":1,"rate":0.03,"volatility":0.2}', 80 + (i % 40))
end
wrk.method = "POST"
wrk.path = "/api/options/price"
wrk.body = '{"options":[' .. table.concat(options, ",") .. ']}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  counts = {}
end

function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do
      total[status] = (total[status] or 0) + n
    end
  end
  for status, n in pairs(total) do
    io.write(string.format("light status %d: %d\n", status, n))
  end
  for _, p in ipairs({ 50, 90, 99, 99.9 }) do
    io.write(string.format("light latency p%g: %.2f ms\n", p, latency:percentile(p) / 1000))
  end
  io.write(string.format("light max: %.2f ms; requests: %d; errors: connect %d, read %d, write %d, timeout %d\n",
    latency.max / 1000, summary.requests, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout))
end
