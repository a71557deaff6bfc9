// Escaping text for HTML and SVG: the e-mail channel's bodies, the one-time link mails, the status
// pages, the sign-in failure pages and the badges share it.

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
