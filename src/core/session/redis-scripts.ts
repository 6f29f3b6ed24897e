// The Redis backend's atomic steps as Lua scripts: Redis runs a script with
// nothing else in between, which makes each one a check-and-set. The rules
// are bucket-change.ts's (applyChange, applyTouch), on one hash per bucket:
// fields v:<name> hold a variable's JSON text, m:<field> the bucket's
// metadata. A bucket expires through the key's own TTL (PEXPIRE).

/**
 * Whether the bucket exists and is live; one whose last use is ttl old by the
 * caller's clock is deleted first, so every backend expires on the same rule
 * (applyChange's), not only when Redis's own TTL fires.
 */
const PRELUDE = `
local function is_live(key, now, ttl)
  if redis.call('EXISTS', key) == 0 then return false end
  local last = tonumber(redis.call('HGET', key, 'm:lastUsed') or '0')
  if tonumber(now) >= last + tonumber(ttl) then
    redis.call('DEL', key)
    return false
  end
  return true
end
`;

/**
 * KEYS[1] the bucket. ARGV: now, ttlMs, create (1/0), maxBucketBytes, user,
 * sessionKey, clientName, hasClientName (1/0), #set, #remove, #expect, then
 * the set pairs (name, json), the names to remove, and the expectations
 * (name, present 1/0, json). Replies {'ok', written 1/0, removed names...},
 * {'conflict', names...} or {'too-large', bytes}; checks come before any write.
 */
export const CHANGE_SCRIPT = PRELUDE + `
local key = KEYS[1]
local nset, nrem, nexp = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local exists = is_live(key, ARGV[1], ARGV[2])
if not exists and ARGV[3] ~= '1' then return {'ok', '0'} end
local i = 12
local sets, rems = {}, {}
for _ = 1, nset do sets[#sets + 1] = {ARGV[i], ARGV[i + 1]}; i = i + 2 end
for _ = 1, nrem do rems[#rems + 1] = ARGV[i]; i = i + 1 end
local conflicts = {'conflict'}
for _ = 1, nexp do
  local cur = redis.call('HGET', key, 'v:' .. ARGV[i])
  if ARGV[i + 1] == '1' then
    if cur ~= ARGV[i + 2] then conflicts[#conflicts + 1] = ARGV[i] end
  elseif cur then
    conflicts[#conflicts + 1] = ARGV[i]
  end
  i = i + 3
end
if #conflicts > 1 then return conflicts end
if nset > 0 then
  local vars = {}
  local all = redis.call('HGETALL', key)
  for j = 1, #all, 2 do
    if string.sub(all[j], 1, 2) == 'v:' then vars[string.sub(all[j], 3)] = all[j + 1] end
  end
  for _, s in ipairs(sets) do vars[s[1]] = s[2] end
  for _, r in ipairs(rems) do vars[r] = nil end
  -- The size of the variables as one JSON object: {"name":json,...}
  local size, n = 2, 0
  for name, json in pairs(vars) do size = size + #name + 3 + #json; n = n + 1 end
  if n > 1 then size = size + n - 1 end
  if size > tonumber(ARGV[4]) then return {'too-large', tostring(size)} end
end
local reply = {'ok', '1'}
for _, r in ipairs(rems) do
  if redis.call('HDEL', key, 'v:' .. r) == 1 then reply[#reply + 1] = r end
end
for _, s in ipairs(sets) do redis.call('HSET', key, 'v:' .. s[1], s[2]) end
if not exists then
  redis.call('HSET', key, 'm:user', ARGV[5], 'm:sessionKey', ARGV[6], 'm:createdAt', ARGV[1])
end
local last = tonumber(redis.call('HGET', key, 'm:lastUsed') or '0')
if tonumber(ARGV[1]) > last then redis.call('HSET', key, 'm:lastUsed', ARGV[1]) end
if ARGV[8] == '1' then redis.call('HSET', key, 'm:clientName', ARGV[7]) end
redis.call('PEXPIRE', key, ARGV[2])
return reply
`;

/** KEYS[1] the bucket. ARGV: lastUsed, ttlMs, user, sessionKey, clientName, hasClientName (1/0). */
export const TOUCH_SCRIPT = PRELUDE + `
local key = KEYS[1]
if not is_live(key, ARGV[1], ARGV[2]) then
  redis.call('HSET', key, 'm:user', ARGV[3], 'm:sessionKey', ARGV[4], 'm:createdAt', ARGV[1], 'm:lastUsed', ARGV[1])
else
  local last = tonumber(redis.call('HGET', key, 'm:lastUsed') or '0')
  if tonumber(ARGV[1]) > last then redis.call('HSET', key, 'm:lastUsed', ARGV[1]) end
end
if ARGV[6] == '1' then redis.call('HSET', key, 'm:clientName', ARGV[5]) end
redis.call('PEXPIRE', key, ARGV[2])
return 1
`;

/** KEYS[1] the bucket. ARGV: remaining ms to live, now, ttlMs, then field/value pairs. Replies 1 when stored, 0 when a live bucket exists. */
export const IMPORT_SCRIPT = PRELUDE + `
local key = KEYS[1]
if is_live(key, ARGV[2], ARGV[3]) then return 0 end
for i = 4, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', key, ARGV[1])
return 1
`;
