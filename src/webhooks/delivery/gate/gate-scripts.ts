/**
 * The delivery gate's Redis scripts. Each runs atomically, so any number of worker processes
 * share one count of requests in flight per endpoint, one circuit and one fair schedule.
 *
 * Keys, under `<REDIS_PREFIX>:wh` (ARGV[1]):
 * - `ready:<endpoint>`  ZSET  deliveries waiting for a slot, scored by when they are due (ms);
 * - `flight:<endpoint>` ZSET  deliveries holding a slot, scored by when the slot expires (ms);
 * - `muted:<endpoint>`  SET   slots of `flight` taken before the endpoint was forgotten: they still
 *                             count against its cap, but their outcome says nothing of it;
 * - `ep:<endpoint>`     HASH  circuit `state` (closed | open | half_open), `failures` in a row,
 *                             `opened_at`, `next_probe_at`, `cooldown`, `probe` (the half-open
 *                             probe's delivery) and `hold_until` (a receiver's Retry-After);
 * - `sched`             ZSET  endpoints with waiting deliveries, scored by when each should be
 *                             looked at next: the lowest score at or before now is served next;
 * - `open`              SET   endpoints whose circuit is open or half-open (a gauge);
 * - `call:<id>`         STRING what one worker's call was granted (`endpoint delivery ...`), kept
 *                             as long as a slot lasts: a call whose answer the worker never got
 *                             (Redis stalled past its command timeout, then ran it) gives its
 *                             slots back through `reclaim` instead of holding them until they expire;
 * - `wake`              channel told when a delivery became due now.
 *
 * Scores are milliseconds of the caller's clock (ARGV[2]), never Redis's, so tests can drive
 * the circuit's cool-downs with an injected clock.
 */

const COMMON = `
local P = ARGV[1]
local now = tonumber(ARGV[2])
local function key(kind, ep) return P .. ':' .. kind .. ':' .. ep end
local SCHED = P .. ':sched'

-- The endpoint's cap now: one while it is in a run of failures (closed or not). Its next
-- request waits for the ones in flight, which all likely fail the same way, instead of
-- opening a new connection to a receiver that just timed out; the first answer below 500
-- ends the run and restores the full cap.
local function cap_of(failures, cap)
  if failures and tonumber(failures) > 0 then return 1 end
  return cap
end

-- Puts the endpoint where it belongs in the schedule, or out of it when it holds nothing. A
-- runnable endpoint keeps an earlier place it already has (its turn is not pushed back by new
-- arrivals); one just served goes behind every endpoint due now (round robin). Every score it
-- writes for an endpoint that cannot be served now lies in the future, so a take loop visiting
-- it moves on.
local function schedule(ep, cap, served)
  local first = redis.call('ZRANGE', key('ready', ep), 0, 0, 'WITHSCORES')
  -- The slot that expires first: a worker that died holding it is found when it does.
  local slot = redis.call('ZRANGE', key('flight', ep), 0, 0, 'WITHSCORES')
  local expiry = nil
  if #slot > 0 then expiry = tonumber(slot[2]) end
  if #first == 0 then
    -- Nothing waits; slots still held are looked at again when they expire.
    if not expiry then
      redis.call('ZREM', SCHED, ep)
    else
      redis.call('ZADD', SCHED, expiry, ep)
    end
    return
  end
  local at = tonumber(first[2])
  local c = redis.call('HMGET', key('ep', ep), 'state', 'next_probe_at', 'hold_until', 'probe', 'failures')
  local hold = tonumber(c[3] or '0')
  if hold > at then at = hold end
  if c[1] == 'open' then
    local probe_at = tonumber(c[2] or '0')
    if probe_at > at then at = probe_at end
  end
  local busy = false
  if c[1] == 'half_open' and c[4] then busy = true end
  if redis.call('ZCARD', key('flight', ep)) >= cap_of(c[5], cap) then busy = true end
  if busy and at <= now then
    -- Until a slot frees: its release reschedules; the earliest slot expiry is the fallback
    -- for a worker that died holding it.
    at = now + 1
    if expiry and expiry > at then at = expiry end
  end
  -- A slot held past its expiry is freed at the endpoint's next visit, and while it is held the
  -- sweep cannot offer its delivery: the visit comes no later than the expiry, even when what
  -- waits is due later (a retry hours away).
  if expiry and expiry < at then at = math.max(expiry, now) end
  if at > now then
    redis.call('ZADD', SCHED, at, ep)
  elseif served then
    redis.call('ZADD', SCHED, now + 1, ep)
  else
    local current = redis.call('ZSCORE', SCHED, ep)
    if not current or tonumber(current) > now then redis.call('ZADD', SCHED, now, ep) end
  end
end

-- Grants up to want slots, visiting endpoints in schedule order and giving each at most
-- quantum per visit. Expired slots (a worker that died) are freed first and their deliveries
-- made due again. An open circuit whose cool-down is over turns half-open and grants one slot:
-- the probe. Circuit changes are appended to changes. What is granted is kept under the
-- caller's call id for as long as a slot lasts (see reclaim).
local function take_slots(cap, want, quantum, ttl, changes, call)
  local granted = {}
  local visits = 0
  while #granted < want and visits < 1000 do
    visits = visits + 1
    local next_ep = redis.call('ZRANGEBYSCORE', SCHED, '-inf', now, 'LIMIT', 0, 1)
    if #next_ep == 0 then break end
    local ep = next_ep[1]
    local epkey = key('ep', ep)
    local expired = redis.call('ZRANGEBYSCORE', key('flight', ep), '-inf', now)
    for _, id in ipairs(expired) do
      redis.call('ZREM', key('flight', ep), id)
      redis.call('SREM', key('muted', ep), id)
      redis.call('ZADD', key('ready', ep), 'LT', now, id)
      if redis.call('HGET', epkey, 'probe') == id then redis.call('HDEL', epkey, 'probe') end
    end
    local c = redis.call('HMGET', epkey, 'state', 'next_probe_at', 'hold_until', 'probe', 'failures')
    local state = c[1] or 'closed'
    if state == 'open' and now >= tonumber(c[2]) then
      state = 'half_open'
      redis.call('HSET', epkey, 'state', state)
      table.insert(changes, { ep, state })
    end
    local allow = cap_of(c[5], cap) - redis.call('ZCARD', key('flight', ep))
    if state == 'open' or tonumber(c[3] or '0') > now then allow = 0 end
    if state == 'half_open' then
      if c[4] then allow = 0 else allow = math.min(allow, 1) end
    end
    allow = math.min(allow, quantum, want - #granted)
    local ids = {}
    if allow > 0 then ids = redis.call('ZRANGEBYSCORE', key('ready', ep), '-inf', now, 'LIMIT', 0, allow) end
    for _, id in ipairs(ids) do
      redis.call('ZREM', key('ready', ep), id)
      redis.call('ZADD', key('flight', ep), now + ttl, id)
      local probe = 0
      if state == 'half_open' then
        redis.call('HSET', epkey, 'probe', id)
        probe = 1
      end
      table.insert(granted, { ep, id, probe })
    end
    schedule(ep, cap, #ids > 0)
  end
  if #granted > 0 then
    local held = {}
    for _, grant in ipairs(granted) do table.insert(held, grant[1] .. ' ' .. grant[2]) end
    redis.call('SET', P .. ':call:' .. call, table.concat(held, ' '), 'PX', ttl)
  end
  return granted
end

-- When the schedule's first endpoint should be looked at (its score), or false when it is empty.
local function next_score()
  local first = redis.call('ZRANGE', SCHED, 0, 0, 'WITHSCORES')
  if #first > 0 then return first[2] end
  return false
end

local function close_circuit(ep)
  redis.call('HDEL', key('ep', ep), 'state', 'opened_at', 'next_probe_at', 'cooldown', 'probe')
  redis.call('SREM', P .. ':open', ep)
end
`;

/**
 * enqueue(P, now, cap, want, quantum, slotTtl, call, [endpoint, delivery, due]...): adds deliveries to
 * their endpoints' ready sets unless holding a slot (the sweep may offer one twice); one already
 * waiting keeps the earlier of its due times (a retry-now brings it forward, an offer of a later
 * time changes nothing). Reschedules the endpoints, then takes up to `want` slots for the caller
 * as take does: a worker offering what it just relayed takes its own deliveries in the same round
 * trip. Tells the workers when something is due now (with `want` > 0, only when the caller left
 * something that can be taken now). Returns how many were added, { {endpoint, delivery, probe}... }
 * granted, { {endpoint, new state}... } and the next score or false, as take does.
 */
export const ENQUEUE = `${COMMON}
local cap, want, quantum, ttl, call = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local added = 0
local due_now = false
local touched = {}
for i = 8, #ARGV, 3 do
  local ep, id, due = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  if not redis.call('ZSCORE', key('flight', ep), id) then
    added = added + redis.call('ZADD', key('ready', ep), 'LT', due, id)
    if due <= now then due_now = true end
  end
  touched[ep] = true
end
for ep in pairs(touched) do schedule(ep, cap, false) end
local changes = {}
local granted = {}
if want > 0 then granted = take_slots(cap, want, quantum, ttl, changes, call) end
local next_at = next_score()
-- A caller that took learned when the next delivery is due: the others are woken only for one
-- that is due now and it left.
if due_now and (want == 0 or (next_at and tonumber(next_at) <= now)) then redis.call('PUBLISH', P .. ':wake', '1') end
return { added, granted, changes, next_at }
`;

/**
 * take(P, now, cap, want, quantum, slotTtl, call): grants up to `want` slots (take_slots).
 * Returns { {endpoint, delivery, probe}... }, { {endpoint, new state}... }, next score or false.
 */
export const TAKE = `${COMMON}
local cap, want, quantum, ttl, call = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local changes = {}
local granted = take_slots(cap, want, quantum, ttl, changes, call)
return { granted, changes, next_score() }
`;

/**
 * release(P, now, cap, threshold, cooldown, maxCooldown, want, quantum, slotTtl, call, [endpoint, delivery, verdict, holdUntil]...):
 * frees the slots and feeds the circuits, then takes up to `want` slots for the caller as take
 * does (one round trip where a busy worker would otherwise make two). `up`: the receiver answered below 500, which closes
 * the circuit and ends a run of failures; `down`: a 5xx, timeout or connection failure, which
 * lengthens the run and at `threshold` opens the circuit (a failed probe reopens it with twice
 * the cool-down, at most `maxCooldown`); `none`: no request was made. `holdUntil` > 0 holds the
 * endpoint back until then (a Retry-After). Returns { {endpoint, delivery, probe}... } granted,
 * { {endpoint, new state}... } and the next score or false, as take does.
 */
export const RELEASE = `${COMMON}
local cap, threshold, cooldown, max_cooldown = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local want, quantum, ttl, call = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10]
local changes = {}
local touched = {}
for i = 11, #ARGV, 4 do
  local ep, id, verdict, hold = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  local epkey = key('ep', ep)
  -- Only a slot still held speaks for the receiver: one forgotten (taken before the endpoint got
  -- another URL, was paused or deleted) or expired (its worker stalled past it, and it may be
  -- held again) says nothing of it.
  if redis.call('ZREM', key('flight', ep), id) == 1 and redis.call('SREM', key('muted', ep), id) == 0 then
    local c = redis.call('HMGET', epkey, 'state', 'probe', 'cooldown', 'hold_until')
    local state = c[1] or 'closed'
    local was_probe = c[2] == id
    if was_probe then redis.call('HDEL', epkey, 'probe') end
    if verdict == 'up' then
      redis.call('HDEL', epkey, 'failures')
      if state ~= 'closed' then
        close_circuit(ep)
        table.insert(changes, { ep, 'closed' })
      end
    elseif verdict == 'down' then
      local failures = redis.call('HINCRBY', epkey, 'failures', 1)
      if state == 'half_open' and was_probe then
        local next_cooldown = math.min(tonumber(c[3]) * 2, max_cooldown)
        redis.call('HSET', epkey, 'state', 'open', 'cooldown', next_cooldown, 'next_probe_at', now + next_cooldown)
        table.insert(changes, { ep, 'open' })
      elseif state == 'closed' and failures >= threshold then
        redis.call('HSET', epkey, 'state', 'open', 'opened_at', now, 'cooldown', cooldown, 'next_probe_at', now + cooldown)
        redis.call('SADD', P .. ':open', ep)
        table.insert(changes, { ep, 'open' })
      end
    end
    if hold > now and hold > tonumber(c[4] or '0') then redis.call('HSET', epkey, 'hold_until', hold) end
  end
  touched[ep] = true
end
for ep in pairs(touched) do
  local epkey = key('ep', ep)
  local c = redis.call('HMGET', epkey, 'state', 'failures', 'hold_until')
  -- A healthy endpoint leaves nothing behind.
  if not c[1] and not c[2] and tonumber(c[3] or '0') <= now then redis.call('DEL', epkey) end
  schedule(ep, cap, false)
end
local granted = {}
if want > 0 then granted = take_slots(cap, want, quantum, ttl, changes, call) end
return { granted, changes, next_score() }
`;

/**
 * reclaim(P, now, cap, call): gives back the slots a call was granted and still holds, for a call
 * whose answer never reached its worker. Their deliveries wait again, due now, and the workers
 * are told. Run after the call on the same connection, it finds whatever the call granted, if it
 * ran at all. Returns how many slots it gave back.
 */
export const RECLAIM = `${COMMON}
local cap, call = tonumber(ARGV[3]), ARGV[4]
local held = redis.call('GET', P .. ':call:' .. call)
if not held then return 0 end
redis.call('DEL', P .. ':call:' .. call)
local given = 0
local touched = {}
for ep, id in string.gmatch(held, '(%S+) (%S+)') do
  if redis.call('ZREM', key('flight', ep), id) == 1 then
    redis.call('SREM', key('muted', ep), id)
    redis.call('ZADD', key('ready', ep), 'LT', now, id)
    local epkey = key('ep', ep)
    if redis.call('HGET', epkey, 'probe') == id then redis.call('HDEL', epkey, 'probe') end
    given = given + 1
  end
  touched[ep] = true
end
for ep in pairs(touched) do schedule(ep, cap, false) end
if given > 0 then redis.call('PUBLISH', P .. ':wake', '1') end
return given
`;

/**
 * forget(P, now, cap, endpoint, mute): drops the endpoint's circuit, its run of failures and its
 * hold, and with `mute` 1 mutes its slots in flight: their attempts finish and keep counting
 * against its cap until released (or expired), but what they meet no longer counts for the
 * endpoint. Then puts it back in the schedule by what waits (an open circuit had pushed its place
 * to the next probe), telling the workers when something is due now.
 */
export const FORGET = `${COMMON}
local cap, ep = tonumber(ARGV[3]), ARGV[4]
redis.call('DEL', key('ep', ep))
if ARGV[5] == '1' then
  local held = redis.call('ZRANGE', key('flight', ep), 0, -1)
  if #held > 0 then redis.call('SADD', key('muted', ep), unpack(held)) end
end
redis.call('SREM', P .. ':open', ep)
schedule(ep, cap, false)
local at = redis.call('ZSCORE', SCHED, ep)
if at and tonumber(at) <= now then redis.call('PUBLISH', P .. ':wake', '1') end
return 1
`;
