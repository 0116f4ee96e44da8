-- Argo CD health check for zvm.dev ZGuestAction (zvm-operator): a one-off operation that runs once,
-- like a batch Job. The controller sets phase Pending/Running/Succeeded/Failed and the conditions
-- Complete and Failed (never Ready), so those decide here.
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

local phase = status.phase or "Pending"
local failed = find(status.conditions, "Failed")
local complete = find(status.conditions, "Complete")
if phase == "Failed" or (failed ~= nil and failed.status == "True") then
  hs.status = "Degraded"
  hs.message = explain(phase, failed)
  return hs
end
if phase == "Succeeded" or (complete ~= nil and complete.status == "True") then
  hs.status = "Healthy"
  hs.message = explain(phase, complete)
  return hs
end
hs.message = explain(phase, complete)
return hs
