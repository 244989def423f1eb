/* LLM settings: choosing a preset fills in its base URL and model (the server fills them too on save).
   A field the user typed into is left alone; only empty fields or another preset's values are replaced. */
(function () {
  "use strict";
  var form = document.getElementById("llm-settings-form");
  var provider = document.getElementById("id_provider");
  var baseUrl = document.getElementById("id_base_url");
  var model = document.getElementById("id_model");
  if (!form || !provider || !baseUrl || !model) return;
  var presets = JSON.parse(form.getAttribute("data-presets") || "{}");

  function isPresetValue(field, value) {
    if (!value) return true;
    return Object.keys(presets).some(function (name) { return presets[name][field] === value; });
  }

  provider.addEventListener("change", function () {
    var preset = presets[provider.value] || { base_url: "", model: "" };
    if (isPresetValue("base_url", baseUrl.value)) baseUrl.value = preset.base_url;
    if (isPresetValue("model", model.value)) model.value = preset.model;
  });
})();
