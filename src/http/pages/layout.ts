import { html, type SafeHtml } from './html.ts';

/**
 * The frame of the sign-in and consent pages: plain HTML that works without JavaScript, one main
 * landmark, a heading per page, and styles inline (the pages load nothing else).
 */
export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        <style>
          :root {
            color-scheme: light dark;
            font-family:
              system-ui,
              -apple-system,
              'Segoe UI',
              sans-serif;
          }
          body {
            margin: 0;
            padding: 0 1rem;
            background: Canvas;
            color: CanvasText;
          }
          main {
            max-width: 26rem;
            margin: 2rem auto;
            padding: 2rem;
            border: 1px solid #8886;
            border-radius: 12px;
          }
          h1 {
            font-size: 1.4rem;
            margin: 0 0 0.5rem;
          }
          p {
            line-height: 1.45;
          }
          label {
            display: block;
            font-weight: 600;
            margin: 1rem 0 0.3rem;
          }
          input[type='email'],
          input[type='password'] {
            box-sizing: border-box;
            width: 100%;
            padding: 0.6rem;
            font: inherit;
            border: 1px solid #888;
            border-radius: 6px;
          }
          fieldset {
            border: 1px solid #8886;
            border-radius: 8px;
            margin: 1rem 0;
            padding: 0.5rem 1rem 1rem;
          }
          legend {
            font-weight: 600;
            padding: 0 0.3rem;
          }
          fieldset label {
            font-weight: 400;
            display: flex;
            gap: 0.5rem;
            align-items: baseline;
            margin: 0.5rem 0 0;
          }
          ul.scopes {
            padding-left: 1.2rem;
          }
          ul.scopes li {
            margin: 0.3rem 0;
            line-height: 1.45;
          }
          code {
            font-size: 0.85em;
          }
          .actions {
            display: flex;
            gap: 0.75rem;
            margin-top: 1.5rem;
          }
          button {
            font: inherit;
            padding: 0.6rem 1.2rem;
            border-radius: 6px;
            border: 1px solid #888;
            cursor: pointer;
          }
          button.link {
            padding: 0;
            border: 0;
            background: none;
            color: inherit;
            text-decoration: underline;
          }
          .switch-account {
            margin-top: 1.5rem;
          }
          button.primary {
            background: #1d4ed8;
            color: #fff;
            border-color: #1d4ed8;
          }
          :focus-visible {
            outline: 3px solid #b45309;
            outline-offset: 2px;
          }
          .error {
            border-left: 4px solid #dc2626;
            padding: 0.4rem 0.8rem;
            background: #dc262614;
          }
          .muted {
            opacity: 0.75;
            font-size: 0.9rem;
          }
        </style>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.value;
}
