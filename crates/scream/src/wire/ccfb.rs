//! RFC 8888 congestion control feedback. PLACEHOLDER: the codec replaces this file.
