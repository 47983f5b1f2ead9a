-- Argo CD health check for cassbench.io BenchmarkRun and BenchmarkSweep (the same script for
-- both kinds). Healthy once the run or sweep succeeded, Degraded once it failed (both final),
-- Progressing until then, with what it is doing as the message. A run that names baselines
-- and succeeded but regressed against them (condition Regressed True) is Degraded too.
local hs = {status = "Progressing", message = "waiting for the cassbench controller"}
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
if obj.metadata.generation ~= nil and obj.status.observedGeneration ~= nil
    and obj.status.observedGeneration < obj.metadata.generation then
  hs.message = "waiting for the cassbench controller to observe the latest spec"
  return hs
end
local conditions = {}
for _, c in ipairs(obj.status.conditions) do
  conditions[c.type] = c
end
local succeeded = conditions["Succeeded"]
if succeeded ~= nil then
  if succeeded.status == "True" then
    hs.status = "Healthy"
  else
    hs.status = "Degraded"
  end
  hs.message = succeeded.message or succeeded.reason
  local regressed = conditions["Regressed"]
  if succeeded.status == "True" and regressed ~= nil and regressed.status == "True" then
    hs.status = "Degraded"
    hs.message = regressed.message or regressed.reason
  end
  return hs
end
local reconciling = conditions["Reconciling"]
if reconciling ~= nil and reconciling.message ~= nil then
  hs.message = reconciling.message
end
if obj.status.phase ~= nil then
  hs.message = obj.status.phase .. ": " .. hs.message
end
return hs
