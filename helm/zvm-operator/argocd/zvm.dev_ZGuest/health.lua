-- Argo CD health check for zvm.dev/ZGuest (zvm-operator).
-- Only Lua base functions are used: Argo CD opens no string library unless useOpenLibs is set.
-- A guest stopped or paused because its spec says so is Healthy: Argo CD waits forever on
-- Progressing, so a declared-stopped guest must not look like one still on its way.
local hs = { status = "Progressing", message = "Waiting for the zvm-operator controller" }

local function find(conditions, ctype)
  if conditions == nil then return nil end
  for _, c in ipairs(conditions) do
    if c.type == ctype then return c end
  end
  return nil
end

local function explain(prefix, c)
  local text = prefix
  if c ~= nil then
    if c.reason ~= nil and c.reason ~= "" then text = text .. " (" .. c.reason .. ")" end
    if c.message ~= nil and c.message ~= "" then text = text .. ": " .. c.message end
  end
  return text
end

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.message = "Pending deletion"
  return hs
end
local status = obj.status
if status == nil then
  return hs
end
local generation = obj.metadata.generation
if generation ~= nil and (status.observedGeneration == nil or status.observedGeneration < generation) then
  hs.message = "Waiting for the controller to observe generation " .. tostring(generation)
  return hs
end

local phase = status.phase or "Unknown"
local ready = find(status.conditions, "Ready")
local synced = find(status.conditions, "Synced")
if ready ~= nil and ready.observedGeneration ~= nil and generation ~= nil and ready.observedGeneration < generation then
  hs.message = "Waiting for the controller to report on generation " .. tostring(generation)
  return hs
end

-- Conflict (userid claimed by someone else), Failed (the host refused a change) and every other
-- Synced=False reason need a person: Degraded ends an Argo CD sync wave instead of hanging it.
if phase == "Conflict" or phase == "Failed" or (synced ~= nil and synced.status == "False") then
  hs.status = "Degraded"
  hs.message = explain(phase, synced or ready)
  return hs
end

-- The host's SMAPI does not answer: nobody can know the guest's state, and the host needs a person
-- (README "When a host is unreachable"). Degraded, as a ZHost whose SMAPI keeps failing.
if ready ~= nil and ready.status == "Unknown" and ready.reason == "HostUnreachable" then
  hs.status = "Degraded"
  hs.message = explain(phase, ready)
  return hs
end

if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = explain(phase, ready)
  local restart = find(status.conditions, "RestartRequired")
  if restart ~= nil and restart.status == "True" then
    hs.message = hs.message .. "; restart required: " .. tostring(restart.message)
  end
  return hs
end

hs.message = explain(phase, ready)
return hs
