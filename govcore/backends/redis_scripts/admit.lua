-- KEYS[1]: a sorted set of admitted requests (score: time). ARGV: now, now - window, limit,
-- this request's member, the key's TTL in milliseconds. Times travel as the exact decimal
-- strings govcore sent: a Lua number would be rounded to 14 digits on its way to a command.
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
local future = redis.call('ZRANGEBYSCORE', key, '(' .. ARGV[1], '+inf')
for _, member in ipairs(future) do
  redis.call('ZADD', key, ARGV[1], member) -- a clock that stepped back: the future is now
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[2])
local count = redis.call('ZCARD', key)
local limit = tonumber(ARGV[3])
if count >= limit then
  local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  return {0, oldest[2]}
end
redis.call('ZADD', key, ARGV[1], ARGV[4])
redis.call('PEXPIRE', key, ARGV[5])
return admitted()
