// The store's Lua scripts. Each runs atomically on the server, so every StateStore method is one
// atomic step even across processes. TTL argument (the last ARGV): '' = none given, 'inf' = no
// expiry, '0' = already expired (delete), otherwise whole milliseconds for PX.

/** Writes ARGV value `v` with ttl argument `ttl`; `keep` keeps the key's expiry when no ttl is given. */
const WRITE = `
local function write(key, v, ttl, keep)
  if ttl == '0' then
    redis.call('DEL', key)
  elseif ttl == '' and keep then
    redis.call('SET', key, v, 'KEEPTTL')
  elseif ttl == '' or ttl == 'inf' then
    redis.call('SET', key, v)
  else
    redis.call('SET', key, v, 'PX', ttl)
  end
end
`

// Formats a number as JavaScript's String(n) does (shortest round-trip digits, the same switch to
// exponent notation), so a counter reads back exactly as it would from memoryStore.
const JS_NUMBER = `
local function jsnum(x)
  if x ~= x then return 'NaN' end
  if x == math.huge then return 'Infinity' end
  if x == -math.huge then return '-Infinity' end
  if x == 0 then return '0' end
  local sign = ''
  if x < 0 then sign = '-'; x = -x end
  local s
  for p = 0, 16 do
    s = string.format('%.' .. p .. 'e', x)
    if tonumber(s) == x then break end
  end
  local mant, exp = string.match(s, '^([%d%.]+)e([-+]%d+)$')
  local digits = string.gsub(string.gsub(mant, '%.', ''), '0+$', '')
  local k = #digits
  local n = tonumber(exp) + 1
  if k <= n and n <= 21 then return sign .. digits .. string.rep('0', n - k) end
  if 0 < n and n <= 21 then return sign .. string.sub(digits, 1, n) .. '.' .. string.sub(digits, n + 1) end
  if -6 < n and n <= 0 then return sign .. '0.' .. string.rep('0', -n) .. digits end
  local e = n - 1
  local es = (e < 0 and '-' or '+') .. string.format('%d', math.abs(e))
  if k == 1 then return sign .. digits .. 'e' .. es end
  return sign .. string.sub(digits, 1, 1) .. '.' .. string.sub(digits, 2) .. 'e' .. es
end
`

/** KEYS[1]; returns the value or nil. */
export const GET_SCRIPT = `return redis.call('GET', KEYS[1])`

/** KEYS[1]; ARGV: value, ttl. */
export const SET_SCRIPT = `${WRITE}
write(KEYS[1], ARGV[1], ARGV[2], false)
return 1`

/**
 * KEYS[1]; ARGV: by, ttl. Returns the new total as a string: Redis would truncate a Lua number
 * reply to an integer. Unreadable current values count as 0, like memoryStore.
 */
export const INCREMENT_SCRIPT = `${WRITE}${JS_NUMBER}
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current == nil or current ~= current or current == math.huge or current == -math.huge then current = 0 end
local total = jsnum(current + tonumber(ARGV[1]))
write(KEYS[1], total, ARGV[2], true)
return total`

/** KEYS[1]; ARGV: '1' if a value is expected ('0' = absent expected), expected, next, ttl. Returns 1 when written. */
export const COMPARE_AND_SET_SCRIPT = `${WRITE}
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
write(KEYS[1], ARGV[3], ARGV[4], false)
return 1`

// A budget's reservations live beside its counter KEYS[1], in its cluster slot: the hash KEYS[2]
// (id -> amount) and one key ARGV[1]..id per reservation (ARGV[1] is the hold prefix), whose PX
// expiry is the reservation's life, so a reservation of a crashed process expires like any key.
const NUMBER_AT = `
local function numberat(key)
  local n = tonumber(redis.call('GET', key) or '0')
  if n == nil or n ~= n or n == math.huge or n == -math.huge then return 0 end
  return n
end
`

/**
 * KEYS: counter, holds; ARGV: hold prefix, id, amount, limit, ttl (whole ms > 0). Sums the live
 * reservations (dropping the expired ones from the hash), grants when counter + held + amount <=
 * limit. Returns {granted (1/0), counter, held} with the numbers as strings.
 */
export const RESERVE_SCRIPT = `${JS_NUMBER}${NUMBER_AT}
local holds = KEYS[2]
local prefix = ARGV[1]
local spent = numberat(KEYS[1])
local held = 0
local all = redis.call('HGETALL', holds)
for i = 1, #all, 2 do
  if redis.call('EXISTS', prefix .. all[i]) == 1 then
    held = held + (tonumber(all[i + 1]) or 0)
  else
    redis.call('HDEL', holds, all[i])
  end
end
local amount = tonumber(ARGV[3])
local granted = 0
if spent + held + amount <= tonumber(ARGV[4]) then
  local ttl = tonumber(ARGV[5])
  redis.call('HSET', holds, ARGV[2], ARGV[3])
  redis.call('SET', prefix .. ARGV[2], ARGV[3], 'PX', ttl)
  if redis.call('PTTL', holds) < ttl then redis.call('PEXPIRE', holds, ttl) end
  granted = 1
end
return {granted, jsnum(spent), jsnum(held)}`

/** KEYS: counter, holds; ARGV: hold prefix, id, amount, ttl of the counter. Releases the reservation, adds amount; returns the new total as a string. */
export const SETTLE_SCRIPT = `${WRITE}${JS_NUMBER}${NUMBER_AT}
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('DEL', ARGV[1] .. ARGV[2])
local total = jsnum(numberat(KEYS[1]) + tonumber(ARGV[3]))
write(KEYS[1], total, ARGV[4], true)
return total`

/**
 * Wraps a script in its epoch check. The last key is the epoch key of the group; the last two ARGV
 * are the epoch this process saw ('' for none yet) and a fresh one to write when there is none.
 * An epoch that is gone, or is not the one seen, means the state vanished: the body does not run and
 * the reply is {'lost', epoch found or ''}. Otherwise the reply is {'ok', epoch, the body's reply}.
 */
export function withEpoch(body: string): string {
  return `local function body()
${body}
end
local key = KEYS[#KEYS]
local seen = ARGV[#ARGV - 1]
local found = redis.call('GET', key)
if found then
  if seen ~= '' and found ~= seen then return {'lost', found} end
else
  if seen ~= '' then return {'lost', ''} end
  found = ARGV[#ARGV]
  redis.call('SET', key, found)
end
return {'ok', found, body()}`
}
