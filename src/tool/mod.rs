//! tool: the tool registry layer (functions → LLM tools). It sits above the analyser and the core
//! never imports it.
