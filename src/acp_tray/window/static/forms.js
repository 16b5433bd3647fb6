/* What the window's forms do beyond htmx (the CSP allows no inline script, so it lives here). */

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

/* A form's answer swapped in with a field marked wrong: the first such field gets the focus, in the
   middle of the view (not under a sticky bar), so the person lands where the problem is. */
document.addEventListener("htmx:afterSettle", (event) => {
  const target = event.target;
  if (!(target instanceof HTMLFormElement)) return;
  const wrong = target.querySelector('[aria-invalid="true"]');
  if (!wrong) return;
  wrong.focus({preventScroll: true});
  wrong.scrollIntoView({block: "center"});
});
