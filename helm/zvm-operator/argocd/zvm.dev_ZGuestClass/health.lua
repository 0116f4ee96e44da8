-- Argo CD health check for zvm.dev/ZGuestClass (zvm-operator).
-- A class is configuration that guests read; nothing reconciles it, so it is Healthy once it exists.
local hs = { status = "Healthy", message = "Class" }
if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "Pending deletion"
  return hs
end
if obj.metadata ~= nil and obj.metadata.generation ~= nil then
  hs.message = "Class at revision " .. tostring(obj.metadata.generation)
end
return hs
