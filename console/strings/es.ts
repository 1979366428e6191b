import type { Partial2 } from '../i18n/index.js';
import type { Strings } from './en.js';

export default {
  skipToContent: 'Ir al contenido',
  signIn: {
    title: 'Iniciar sesión en Parley',
    lead: 'Usa el correo y la contraseña que tu administrador configuró para ti.',
    email: 'Correo electrónico',
    password: 'Contraseña',
    submit: 'Iniciar sesión',
    busy: 'Iniciando sesión…',
    wrong: 'El correo y la contraseña no coinciden. Revisa ambos e inténtalo de nuevo.',
    throttled: 'Demasiados intentos. Inténtalo de nuevo en {minutes} minutos.',
    ended: 'Tu sesión terminó. Vuelve a iniciar sesión para continuar.',
    noPassword:
      '¿Aún sin contraseña? Un operador la configura con: npm run cli -- users set-password --email tu@example.com',
  },
  setup: {
    title: 'Te damos la bienvenida a Parley',
    lead: 'Elige la contraseña con la que tú, el propietario, iniciarás sesión. Este enlace funciona una sola vez.',
    password: 'Nueva contraseña',
    repeat: 'La misma contraseña otra vez',
    hint: 'Al menos 10 caracteres.',
    submit: 'Guardar e iniciar sesión',
    busy: 'Guardando…',
    mismatch: 'Las dos contraseñas no coinciden.',
    invalid: 'Este enlace de configuración ya no funciona: se usó o caducó. Inicia sesión con tu contraseña.',
    toSignIn: 'Ir al inicio de sesión',
  },
  firstRun:
    'Primer inicio: nadie tiene contraseña todavía. Abre el enlace de configuración que el servidor mostró al arrancar (npm start) para elegir la tuya.',
  header: {
    chatbot: 'Chatbot',
    noChatbots: 'Aún no hay chatbots',
    account: 'Cuenta',
    signedInAs: 'Sesión iniciada como {email}',
    role: {
      owner: 'Propietario',
      admin: 'Administrador',
      member: 'Miembro',
    },
    language: 'Idioma',
    name: 'Tu nombre',
    nameHint: 'Los visitantes lo ven en tus respuestas. Vacío: «Equipo de soporte».',
    saveName: 'Guardar nombre',
    nameSaved: 'Guardado.',
    signOut: 'Cerrar sesión',
    signOutEverywhere: 'Cerrar sesión en todas partes',
  },
  nav: {
    label: 'Consola',
    chatbotPages: 'Este chatbot',
    accountPages: 'Cuenta',
  },
  loading: 'Cargando…',
  notFound: 'Esta página no existe.',
  chatbotNotFound: 'Este chatbot no existe o no tienes acceso a él.',
  failed: 'Algo salió mal: {message}',
  retry: 'Reintentar',
  backToChatbots: 'Ir a tus chatbots',
} satisfies Partial2<Strings>;
