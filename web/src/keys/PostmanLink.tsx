// The Postman collection of the REST API ({api_root}/postman.json), to download and import: every read, with the
// key and secret as the collection's variables.
export function PostmanLink({ apiUrl }: { apiUrl: string | null }) {
  // No href until the API's address is known: the line is there from the start (no layout shift), the link after.
  // Underlined: within muted text, colour alone would not tell it is a link.
  return (
    <p className="muted small" style={{ marginTop: 6 }}>
      <a
        href={apiUrl ? `${apiUrl}/postman.json` : undefined}
        download="waypost.postman_collection.json"
        style={{ textDecoration: 'underline' }}
      >
        Download the Postman collection
      </a>
      {' '}of the REST API, then set its <code>accessToken</code> and <code>accessSecret</code> variables to a key
      and its secret.
    </p>
  );
}
