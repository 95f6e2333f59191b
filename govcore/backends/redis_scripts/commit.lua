-- KEYS: every key the mutation read, then (when there is one) this commit's marker, a key in
-- the same slot. ARGV[1]: the marker's TTL in milliseconds; then three arguments per key: the
-- token it had when read ('' when absent), its new value ('' to leave it alone) and the new
-- value's TTL in milliseconds.
local keys = #KEYS
local marker = nil
if #ARGV < 3 * keys + 1 then
  marker = KEYS[keys]
  keys = keys - 1
  if redis.call('EXISTS', marker) == 1 then
    return {1} -- this very commit was applied already: its reply was lost and it was resent
  end
end
local current = {}
local stale = false
for i = 1, keys do
  local raw = redis.call('GET', KEYS[i])
  current[i] = raw
  local seen = raw and string.sub(raw, 1, 8) or ''
  if seen ~= ARGV[3 * i - 1] then stale = true end
end
if stale then
  local answer = {0}
  for i = 1, keys do answer[i + 1] = current[i] end
  return answer
end
for i = 1, keys do
  if ARGV[3 * i] ~= '' then
    redis.call('SET', KEYS[i], ARGV[3 * i], 'PX', ARGV[3 * i + 1])
  end
end
if marker then
  redis.call('SET', marker, '1', 'PX', ARGV[1])
end
return {1}
