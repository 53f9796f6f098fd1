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

// The number under a counter key, absent = 0. A value that is not a finite number (overwritten by
// hand, by another application) fails the script with an error starting with UNREADABLE, before
// anything is written: read as 0, it would wipe what was spent.
const NUMBER_AT = `
local function numberat(key)
  local raw = redis.call('GET', key)
  if not raw then return 0 end
  local n = tonumber(raw)
  if n == nil or n ~= n or n == math.huge or n == -math.huge then
    error({err = 'UNREADABLE ' .. string.sub(raw, 1, 64)})
  end
  return n
end
-- current + by, refused (OVERFLOW) before anything is written when it is no finite number.
local function summed(current, by)
  local sum = current + by
  if sum ~= sum or sum == math.huge or sum == -math.huge then
    error({err = 'OVERFLOW the counter would be taken past the largest number: refused, the counter left as it was'})
  end
  return sum
end
`

/**
 * KEYS[1]; ARGV: by, ttl. Returns the new total as a string: Redis would truncate a Lua number
 * reply to an integer. A current value that is not a number fails the script (UNREADABLE), like memoryStore.
 */
export const INCREMENT_SCRIPT = `${WRITE}${JS_NUMBER}${NUMBER_AT}
local total = jsnum(summed(numberat(KEYS[1]), tonumber(ARGV[1])))
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

// A budget's reservations live beside its counter KEYS[1], in its cluster slot, in three keys named
// after KEYS[2] (`holds`): the hash `holds` (id -> amount, the exact string given), the sorted set
// `holds:expiry` (id -> absolute expiry, ms of the server's clock) and `holds:sum` (the amounts'
// running total), so that a reserve or a settle costs O(log n) in the n reservations live plus the
// ones that expired since the last reserve, never a walk over all of them. A reservation of a
// crashed process stops counting once its expiry passes; the keys carry the longest expiry as their
// TTL, so an abandoned budget's keys vanish too. ARGV[1], the prefix of the per-id hold keys of an
// earlier layout, is no longer used.
//
// The running total is a double updated as memoryStore updates its sum (held + (amount - previous)
// on a grant, sum - amount on a release, 0 once no reservation is left), so both stores return the
// same numbers; it is stored with 17 significant digits, which read back as the same double. Rounding
// may only drift while reservations stay in flight without a pause, by about 1e-16 of the total per
// step, and is gone the moment the last one ends. Integer micro-units would be exact but round
// amounts below a micro-dollar (a token's price) to 0, which held must not do.
// The three keys, and the repair of a set whose keys disagree (one of them evicted or deleted, or
// a hash of amounts left by an earlier layout): only reservations found in both the hash and the
// sorted set are kept, and the total is summed again. That walk runs only when the keys disagree.
const HOLDS = `
local amounts, expiries, total = KEYS[2], KEYS[2] .. ':expiry', KEYS[2] .. ':sum'
local function exact(x) return string.format('%.17g', x) end
local function repair()
  local sum, n = 0, 0
  local all = redis.call('HGETALL', amounts)
  for i = 1, #all, 2 do
    if redis.call('ZSCORE', expiries, all[i]) then
      -- A reservation's amount read as 0 would let the budget grant what it holds: refused, as a counter is.
      local held = tonumber(all[i + 1])
      if held == nil or held ~= held or held == math.huge or held == -math.huge then
        error({err = 'UNREADABLE-HOLD ' .. string.sub(all[i + 1], 1, 64)})
      end
      sum = sum + held
      n = n + 1
    else
      redis.call('HDEL', amounts, all[i])
    end
  end
  if redis.call('ZCARD', expiries) ~= n then
    for _, id in ipairs(redis.call('ZRANGE', expiries, 0, -1)) do
      if redis.call('HEXISTS', amounts, id) == 0 then redis.call('ZREM', expiries, id) end
    end
  end
  redis.call('DEL', total)
  if n > 0 then
    redis.call('SET', total, exact(sum))
    local ttl = redis.call('PTTL', expiries)
    if ttl > 0 then
      redis.call('PEXPIRE', amounts, ttl)
      redis.call('PEXPIRE', total, ttl)
    end
  end
  return sum, n
end
`

/**
 * KEYS: counter, holds; ARGV: hold prefix (unused), id, amount, limit, ttl (whole ms > 0). Drops the
 * reservations whose expiry has passed, then grants when counter + held + amount <= limit, held being
 * the total of the live reservations (a live one under the same id included: it is replaced).
 * Returns {granted (1/0), counter, held} with the numbers as strings.
 */
export const RESERVE_SCRIPT = `${JS_NUMBER}${NUMBER_AT}${HOLDS}
local spent = numberat(KEYS[1])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local n = redis.call('ZCARD', expiries)
local held = tonumber(redis.call('GET', total) or '')
if n ~= redis.call('HLEN', amounts) or (n > 0) ~= (held ~= nil) then held, n = repair() end
local expired = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
if #expired > 0 then
  for _, id in ipairs(expired) do
    held = held - (tonumber(redis.call('HGET', amounts, id)) or 0)
    redis.call('HDEL', amounts, id)
  end
  redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now)
  n = n - #expired
  if n > 0 then redis.call('SET', total, exact(held), 'KEEPTTL') end
end
if n == 0 then
  if held ~= nil then redis.call('DEL', total) end
  held = 0
end
local amount = tonumber(ARGV[3])
local granted = 0
if spent + held + amount <= tonumber(ARGV[4]) then
  -- Past 2^52 ms (142,000 years) a reservation is as good as endless: its expiry and PEXPIRE stay exact.
  local ttl = math.min(tonumber(ARGV[5]), 4503599627370496)
  local previous = tonumber(redis.call('HGET', amounts, ARGV[2]) or '0') or 0
  redis.call('HSET', amounts, ARGV[2], ARGV[3])
  redis.call('ZADD', expiries, exact(now + ttl), ARGV[2])
  redis.call('SET', total, exact(held + (amount - previous)), 'KEEPTTL')
  if redis.call('PTTL', expiries) < ttl then
    redis.call('PEXPIRE', expiries, exact(ttl))
    redis.call('PEXPIRE', amounts, exact(ttl))
    redis.call('PEXPIRE', total, exact(ttl))
  end
  granted = 1
end
return {granted, jsnum(spent), jsnum(held)}`

/**
 * KEYS: counter, holds; ARGV: hold prefix (unused), id, amount, ttl of the counter. Releases the
 * reservation, live or expired, and adds amount; returns the new total as a string.
 */
export const SETTLE_SCRIPT = `${WRITE}${JS_NUMBER}${NUMBER_AT}${HOLDS}
-- Read first: a counter that cannot be read fails the settle before the reservation is released.
local committed = jsnum(summed(numberat(KEYS[1]), tonumber(ARGV[3])))
local amount = redis.call('HGET', amounts, ARGV[2])
redis.call('HDEL', amounts, ARGV[2])
if redis.call('ZREM', expiries, ARGV[2]) == 1 then
  local sum = tonumber(redis.call('GET', total) or '')
  if redis.call('ZCARD', expiries) == 0 then
    redis.call('DEL', amounts, total)
  elseif sum ~= nil then
    redis.call('SET', total, exact(sum - (tonumber(amount or '0') or 0)), 'KEEPTTL')
  end
end
write(KEYS[1], committed, ARGV[4], true)
return committed`

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
