/* Whether the page can still act: while acp-tray is not running (the window's event stream says so
   in #down) or this window has closed (its server gone, or a new one that does not know this page),
   #down says so in words and every button is disabled; when acp-tray runs again the stream takes the
   words away, and the buttons come back. (The CSP allows no inline script, so it lives here.) */

const down = () => document.getElementById("down");

/* The buttons follow #down: disabled while it holds a banner, as they were when it is empty. */
function follow() {
  const banner = down()?.querySelector(".down-banner");
  for (const button of document.querySelectorAll("button, input[type=submit]")) {
    if (banner && !button.disabled) {
      button.disabled = true;
      button.dataset.downDisabled = "yes";
    } else if (!banner && button.dataset.downDisabled) {
      button.disabled = false;
      delete button.dataset.downDisabled;
    }
  }
}

/* This window has closed: the words from the page's own template (the server cannot send them). */
function closed() {
  const words = document.getElementById("window-closed");
  const shown = down();
  if (!words || !shown || shown.querySelector('[data-down="window"]')) return;
  shown.replaceChildren(words.content.cloneNode(true));
  follow();
}

/* A request or the event stream failed: the window's server answers whether it still knows this
   page (403: a new window, or no server at all: closed); if it does, the stream reconnects by itself. */
function probe() {
  fetch("/alive", {cache: "no-store", credentials: "same-origin"})
    .then((answer) => { if (answer.status === 403) closed(); })
    .catch(closed);
}

document.addEventListener("htmx:afterSettle", follow);
document.addEventListener("htmx:sseMessage", follow);
document.addEventListener("htmx:sseError", probe);
document.addEventListener("htmx:sendError", probe);
document.addEventListener("htmx:responseError", (event) => {
  const answer = event.detail.xhr;
  if (answer && answer.status === 403 && answer.getResponseHeader("X-Acp-Tray-Window") === "closed") closed();
});
