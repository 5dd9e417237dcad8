// The console's entry: sign in first, load the rest after. Without a session the browser
// leaves for the issuer at once, before the shell and its pages are fetched; back from the
// issuer, the code exchange runs while the modules index.html preloads arrive.

import { ensureSession } from './auth.js';

const session = await ensureSession().catch((error) => {
  console.error(error);
  const root = document.getElementById('app');
  root.textContent = `Sign-in failed / เข้าสู่ระบบไม่สำเร็จ: ${error?.message ?? error}`;
  root.className = 'boot-error';
  return undefined;
});
if (session) (await import('./app.js')).start(session);
