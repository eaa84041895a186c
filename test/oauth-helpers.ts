/**
 * A person's browser for the consent page over plain HTTP: follows redirects by hand, keeps cookies per
 * origin, and fills the server-rendered form the way a person would (the same fields, the same POST).
 */
export interface Choice {
  key: string;
  vaults: string[];
  manager?: boolean;
  /** test-only: leave the CSRF field out */
  dropCsrf?: boolean;
}

export class Browser {
  private cookies = new Map<string, string>();

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** GET or POST without following redirects, with the cookies held. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: this.cookieHeader() },
    });
    this.remember(res);
    return res;
  }

  /** Follows redirects until one leaves the listener (the client's redirect URI) or a page answers. */
  async follow(url: string, origin: string, init: RequestInit = {}): Promise<{ url: string; res?: Response }> {
    let res = await this.request(url, init);
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      const next = new URL(res.headers.get('location')!, url).href;
      if (!next.startsWith(origin)) return { url: next };
      url = next;
      res = await this.request(url);
    }
    return { url, res };
  }

  /**
   * Opens the authorization URL and answers the consent page as a person does: the key first (the page then lists
   * the vaults it reaches), then the choice. The URL the browser is sent to at the end, and the last page.
   */
  async consent(
    authorizeUrl: string,
    origin: string,
    choice: Choice,
  ): Promise<{ url: string; page: string; status: number }> {
    const opened = await this.follow(authorizeUrl, origin);
    if (!opened.res) return { url: opened.url, page: '', status: 0 };
    const page = await opened.res.text();
    const csrf = hidden(page, 'csrf');
    if (!csrf) return { url: opened.url, page, status: opened.res.status };
    const post = (form: URLSearchParams) => {
      if (!choice.dropCsrf) form.set('csrf', csrf);
      return this.follow(opened.url, origin, {
        method: 'POST',
        body: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      });
    };
    const step = await post(new URLSearchParams({ key: choice.key, decision: 'continue' }));
    const chooser = step.res ? await step.res.text() : '';
    const keyId = hidden(chooser, 'key_id');
    const proof = hidden(chooser, 'proof');
    if (!step.res || !keyId || !proof) return { url: step.url, page: chooser, status: step.res?.status ?? 303 };
    const form = new URLSearchParams({ key_id: keyId, proof, decision: 'approve' });
    for (const v of choice.vaults) form.append('vault', v);
    if (choice.manager) form.set('manager', '1');
    const sent = await post(form);
    return { url: sent.url, page: sent.res ? await sent.res.text() : '', status: sent.res?.status ?? 303 };
  }
}

/** The value of a page's hidden form field. */
export const hidden = (page: string, name: string): string | undefined =>
  new RegExp(`name="${name}" value="([^"]+)"`).exec(page)?.[1];
