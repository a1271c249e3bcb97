// The one script: picking a project or a range reloads the page at once.
// Without it the pickers' Go button does the same.
document.querySelectorAll("form.picker select").forEach(function (s) {
  s.addEventListener("change", function () { s.form.submit(); });
});
document.querySelectorAll("form.picker button").forEach(function (b) { b.hidden = true; });
