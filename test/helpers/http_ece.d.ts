// http_ece ships no types: the two functions the tests' push service uses.
declare module 'http_ece' {
  interface Params {
    version: 'aes128gcm' | 'aesgcm';
    privateKey?: import('node:crypto').ECDH;
    authSecret?: string;
    dh?: string;
    keyid?: string;
    salt?: string;
    rs?: number;
  }
  const ece: { decrypt(buffer: Buffer, params: Params): Buffer; encrypt(buffer: Buffer, params: Params): Buffer };
  export default ece;
}
