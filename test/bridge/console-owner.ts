// What a Waypost account's owner does in the console, through its JSON API, for the bridge's browser tests.

/** Signs in with the password and allows the WordPress user the last refused sign-in link asked for. */
export async function allowRequestedWordPressUser(waypostUrl: string, email: string, password: string): Promise<{
  site_url: string; wp_user_id: number }> {
  const signIn = await fetch(`${waypostUrl}/admin/api/session`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
  });
  if (signIn.status !== 200) throw new Error(`the owner's sign-in answered ${signIn.status}`);
  const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith('waypost_session='))!.split(';')[0]!;
  const headers = { cookie, 'x-csrf-token': (await signIn.json()).csrf_token as string };
  const account = await (await fetch(`${waypostUrl}/admin/api/account`, { headers })).json();
  const { site_url, wp_user_id } = account.wordpress_link_request ?? {};
  const allowed = await fetch(`${waypostUrl}/admin/api/account/wordpress-link`, {
    method: 'PUT', headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ site_url, wp_user_id }),
  });
  if (allowed.status !== 200) throw new Error(`allowing the WordPress user answered ${allowed.status}`);
  return { site_url, wp_user_id };
}
