/**
 * The mail transport: nodemailer over SMTP_URL, or, without it, a folder of .eml files under
 * $DATA_DIR/mail/ that an operator (or a developer) opens with any mail reader.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
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
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      destination: 'smtp',
      async send(mail) {
        await transport.sendMail(message(mail));
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    destination: options.folder,
    async send(mail) {
      const built = (await transport.sendMail(message(mail))) as unknown as { message: Buffer };
      await mkdir(options.folder, { recursive: true, mode: 0o700 });
      const file = join(options.folder, `${new Date().toISOString().replace(/[:.]/g, '-')}-${newId().slice(0, 8)}.eml`);
      await writeFile(file, built.message, { mode: 0o600 });
      // The path, never the content: a code mail's text is the code.
      options.log?.info({ file }, 'mail written to a file (SMTP_URL is not set)');
    },
    close: () => transport.close(),
  };
}
