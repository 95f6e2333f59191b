-- KEYS[1]: a sorted set of admitted requests (score: time). ARGV: now, now - window, limit,
-- this request's member, the TTL in milliseconds of a log whose newest time is now, window,
-- now - 2 * window. Times travel as the exact decimal strings govcore sent: a Lua number would
-- be rounded to 14 digits on its way to a command, so a time computed here goes back with 17.
-- KEYS[2...], on one server only: keys to read for an admitted request (their values follow).
local key = KEYS[1]
local function admitted()
  if #KEYS > 1 then
    return {1, redis.call('MGET', unpack(KEYS, 2))}
  end
  return {1}
end
if redis.call('ZSCORE', key, ARGV[4]) then
  return admitted() -- this very request was admitted already: its reply was lost and it was resent
end
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[6])
local limit = tonumber(ARGV[3])
local newest = now
local reset = false
local future = redis.call('ZRANGEBYSCORE', key, '(' .. ARGV[1], '+inf', 'WITHSCORES')
if #future > 0 then
  local last = tonumber(future[#future])
  if now <= last - window then
    reset = true -- a step back of a window or more resets the clock: the future counts as now
    for i = 1, #future, 2 do
      redis.call('ZADD', key, ARGV[1], future[i])
    end
  else
    newest = last -- a step back of less than a window: logged times keep their own
  end
end
-- Times two windows before the newest can no longer share a window with a new request.
local horizon = ARGV[7]
local ttl = ARGV[5]
if newest > now then
  horizon = string.format('%.17g', newest - 2 * window)
  ttl = tonumber(ttl) + math.ceil((newest - now) * 1000)
end
local count = redis.call('ZCOUNT', key, '(' .. ARGV[2], '+inf')
if count >= limit then
  local first
  if newest == now then
    first = redis.call('ZRANGE', key, -limit, -limit, 'WITHSCORES')[2]
  else
    -- the newest group of `limit` recent times spanning less than a window fills one with now
    local recent = redis.call('ZRANGEBYSCORE', key, '(' .. ARGV[2], '+inf', 'WITHSCORES')
    for i = count - limit + 1, 1, -1 do
      if tonumber(recent[2 * (i + limit - 1)]) - tonumber(recent[2 * i]) < window then
        first = recent[2 * i]
        break
      end
    end
  end
  if first then
    if reset then redis.call('ZREMRANGEBYSCORE', key, '-inf', horizon) end
    return {0, first}
  end
end
redis.call('ZADD', key, ARGV[1], ARGV[4])
redis.call('ZREMRANGEBYSCORE', key, '-inf', horizon)
redis.call('PEXPIRE', key, ttl)
return admitted()
