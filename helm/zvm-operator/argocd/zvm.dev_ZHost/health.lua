-- Argo CD health check for zvm.dev/ZHost (zvm-operator).
-- Only Lua base functions are used: Argo CD opens no string library unless useOpenLibs is set.
-- A ZHost is configuration the guest controller reads (endpoint, credentials Secret, defaults);
-- when nothing reports a status on it, it is Healthy as soon as it exists (kstatus rule for
-- resources without status). Once a status is reported, it is judged like every other kind.
local hs = { status = "Healthy", message = "ZHost configured (no status reported)" }

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
  hs.status = "Progressing"
  hs.message = "Pending deletion"
  return hs
end
local status = obj.status
if status == nil or (status.observedGeneration == nil and status.conditions == nil and status.smapiHealthy == nil) then
  return hs
end
local generation = obj.metadata.generation
if generation ~= nil and status.observedGeneration ~= nil and status.observedGeneration < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to observe generation " .. tostring(generation)
  return hs
end

local phase = status.phase or "ZHost"
local ready = find(status.conditions, "Ready")
local synced = find(status.conditions, "Synced")
if status.smapiHealthy == false then
  hs.status = "Degraded"
  hs.message = explain(phase .. ": SMAPI is not answering", ready)
  return hs
end
-- a refused SSH host key does not heal by waiting: someone has to check the host and its key
local hostKey = find(status.conditions, "HostKeyVerified")
if hostKey ~= nil and hostKey.status == "False" then
  hs.status = "Degraded"
  hs.message = explain(phase .. ": management guest host key refused", hostKey)
  return hs
end
if phase == "Failed" or (synced ~= nil and synced.status == "False") then
  hs.status = "Degraded"
  hs.message = explain(phase, synced or ready)
  return hs
end
if ready ~= nil and ready.status ~= "True" then
  hs.status = "Progressing"
  hs.message = explain(phase, ready)
  return hs
end
hs.message = explain(phase, ready)
if status.hypervisorVersion ~= nil then
  hs.message = hs.message .. " (z/VM " .. tostring(status.hypervisorVersion) .. ")"
end
return hs
