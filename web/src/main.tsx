// Entry of the web inbox bundle (built by `hookmap codegen` into
// engine/person/inbox/assets/, served by `hookmap up` at /).
import { render } from 'preact';
import { App } from './ui/App.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
