// The dashboard's sign-in: the token is sent once, as JSON from this page; the emulator answers
// with an HttpOnly cookie the dashboard's own requests then carry.
const form = document.getElementById("sign-in");
const error = document.getElementById("error");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.hidden = true;
  const token = form.elements.token.value;
  const res = await fetch("/_emulator/ui/sign-in", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  }).catch(() => null);
  if (res && res.ok) {
    location.replace(`/_emulator/ui/${location.hash}`);
    return;
  }
  const body = res ? await res.json().catch(() => ({})) : {};
  error.textContent = res ? (Array.isArray(body.message) ? body.message.join("; ") : body.message ?? `HTTP ${res.status}`) : "The emulator is unreachable";
  error.hidden = false;
});
