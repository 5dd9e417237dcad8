// The step-up popup's landing page: hands the issuer's answer (code and state, or an error)
// to the console window that opened it, on this origin only, and closes. The code is useless
// without the PKCE verifier, which never left the opener's memory.
let opener = null;
try {
  opener = window.opener && window.opener.location.origin === location.origin ? window.opener : null;
} catch {
  opener = null; // an opener on another origin cannot even be asked its origin
}
if (opener) {
  opener.postMessage({ type: 'satang-oidc-callback', url: location.href }, location.origin);
  window.close();
} else {
  document.body.textContent = 'This page finishes a step-up in the console; open the console instead.';
}
