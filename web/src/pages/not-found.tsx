// The view of an address the dashboard has no page for (a mistyped or outdated link).
export function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p data-testid="not-found">
        There is no page at <code>{location.hash || '/'}</code>. Go to the <a href="#/overview">overview</a>, the{' '}
        <a href="#/domains">domains</a> or the <a href="#/notifications">notifications</a>.
      </p>
    </>
  );
}
