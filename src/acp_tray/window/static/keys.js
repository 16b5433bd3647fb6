/* Ctrl+Enter (Cmd+Enter on a Mac) in a text box of a form marked data-send-keys sends that form,
   as its submit button would (htmx takes the submit event). */
document.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.isComposing) return;
  const box = event.target;
  const form = box instanceof HTMLTextAreaElement ? box.closest("form[data-send-keys]") : null;
  if (!form) return;
  event.preventDefault();
  form.requestSubmit();
});
