/**
 * The default transport: in-process receivers registered per URL with
 * `sandbox.webhooks.listen`. A URL nobody listens on is a transport error (like a refused
 * connection), recorded and retried: a test sees it instead of a silent success.
 * @module
 */
import type { ReceiverContext, WebhookReceiver, WebhookRequest, WebhookResponse } from './types.js';

/** Receivers by URL. */
export class Receivers {
  readonly #byUrl = new Map<string, WebhookReceiver>();

  listen(url: string, receiver: WebhookReceiver): () => void {
    if (typeof receiver !== 'function') throw new TypeError('listen(url, receiver): the receiver must be a function.');
    const key = normalize(url);
    this.#byUrl.set(key, receiver);
    return () => {
      if (this.#byUrl.get(key) === receiver) this.#byUrl.delete(key);
    };
  }

  /** Sends one request to the receiver of its URL. */
  async send(request: WebhookRequest, context: ReceiverContext): Promise<WebhookResponse> {
    const receiver = this.#byUrl.get(normalize(request.url));
    if (!receiver) throw new Error(`No receiver registered for ${request.url} (sandbox.webhooks.listen)`);
    const webRequest = new Request(request.url, { method: 'POST', headers: request.headers, body: request.body });
    let answer: Response | number | void;
    try {
      answer = await receiver(webRequest, context);
    } catch (error) {
      // A receiver that throws is a server that answers 500.
      return { status: 500, body: `The receiver threw: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (answer === undefined) return { status: 200 };
    if (typeof answer === 'number') return { status: answer };
    return { status: answer.status, body: await answer.text() };
  }
}

function normalize(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}
