import { render } from 'preact';
import { App } from './app.tsx';
import { resume } from './session.ts';
import './styles.css';

render(<App />, document.getElementById('app')!);
void resume();
