/**
 * The mail transport: nodemailer over SMTP_URL, or, without it, a folder of .eml files under
 * $DATA_DIR/mail/ that an operator (or a developer) opens with any mail reader. nodemailer is
 * loaded on the first mail, not at start (bench/README.md, startup).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import { newId } from '../domain/ids.js';
import type { Mail, Mailer } from '../domain/visitors/ports.js';

export interface MailerOptions {
  /** smtp:// or smtps:// URL (user:password@host:port); null writes .eml files instead. */
  smtpUrl: string | null;
  /** Where .eml files go when there is no SMTP server. */
  folder: string;
  from: string;
  log?: { info(obj: unknown, msg: string): void };
}

export interface MailTransport extends Mailer {
  /** `smtp` or the folder the files are written to. */
  readonly destination: string;
  close(): void;
}

export function createMailer(options: MailerOptions): MailTransport {
  const message = (mail: Mail) => ({
    from: options.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    ...(mail.language ? { headers: { 'Content-Language': mail.language } } : {}),
  });
  let transport: Promise<Transporter> | undefined;
  const opened = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      options.smtpUrl
        ? nodemailer.createTransport(options.smtpUrl)
        : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
    ));
  const close = () =>
    void transport?.then(
      (t) => t.close(),
      () => undefined,
    );
  if (options.smtpUrl) {
    return {
      destination: 'smtp',
      async send(mail) {
        await (await opened()).sendMail(message(mail));
      },
      close,
    };
  }
  return {
    destination: options.folder,
    async send(mail) {
      const built = (await (await opened()).sendMail(message(mail))) as unknown as { message: Buffer };
      await mkdir(options.folder, { recursive: true, mode: 0o700 });
      const file = join(options.folder, `${new Date().toISOString().replace(/[:.]/g, '-')}-${newId().slice(0, 8)}.eml`);
      await writeFile(file, built.message, { mode: 0o600 });
      // The path, never the content: a code mail's text is the code.
      options.log?.info({ file }, 'mail written to a file (SMTP_URL is not set)');
    },
    close,
  };
}
