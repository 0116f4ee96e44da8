-- Argo CD health check for zvm.dev kinds (zvm-operator) that follow the common status contract:
-- status.observedGeneration, conditions Ready and Synced, a short phase.
-- Only Lua base functions are used: Argo CD opens no string library unless useOpenLibs is set.
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

local phase = status.phase or obj.kind or "Resource"
local ready = find(status.conditions, "Ready")
local synced = find(status.conditions, "Synced")
local stalled = find(status.conditions, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = explain(phase, stalled)
  return hs
end
if phase == "Failed" or phase == "Conflict" or phase == "Error" or (synced ~= nil and synced.status == "False") then
  hs.status = "Degraded"
  hs.message = explain(phase, synced or ready)
  return hs
end
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = explain(phase, ready)
  return hs
end
if ready == nil then
  hs.message = phase .. ": waiting for the Ready condition"
  return hs
end
hs.message = explain(phase, ready)
return hs
