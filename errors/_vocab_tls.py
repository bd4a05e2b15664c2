"""TLS: a certificate that cannot be trusted, and handshakes that broke in transit.

Sources of truth: OpenSSL's verify-error strings (`X509_verify_cert_error_string`) and its
`SSL_R_*` reason names as Python's `ssl` module prints them ("[SSL: CERTIFICATE_VERIFY_FAILED]
certificate verify failed: …"), Go's `crypto/x509` errors, Node's TLS error codes and the
Python clients' certificate exception names. A certificate problem is not fixed by trying
again: someone has to install the right authority or renew the certificate. A handshake that
broke (EOF, reset, timeout) is a network failure like any other.
"""

from __future__ import annotations

from errors._facts import Signal as S
from errors._facts import Term, term

__all__ = ["TERMS"]

_CERT = S.CERTIFICATE

TERMS: tuple[Term, ...] = (
    # OpenSSL, as Python's ssl module reports it
    term("CERTIFICATE_VERIFY_FAILED", _CERT, "OpenSSL SSL_R_CERTIFICATE_VERIFY_FAILED"),
    term("certificate verify failed", _CERT, "OpenSSL: the chain did not verify"),
    term("unable to get local issuer certificate", _CERT, "X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT"),
    term("self signed certificate", _CERT, "X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT"),
    term("self-signed certificate", _CERT, "OpenSSL 3 wording of a self-signed certificate"),
    term("certificate has expired", _CERT, "X509_V_ERR_CERT_HAS_EXPIRED"),
    term("certificate is not yet valid", _CERT, "X509_V_ERR_CERT_NOT_YET_VALID"),
    term("Hostname mismatch", _CERT, "X509_V_ERR_HOSTNAME_MISMATCH"),
    term("certificate name mismatch", _CERT, "exim and others: the certificate names another host"),
    term("doesn't match either of", _CERT, "Python ssl.match_hostname"),
    term("unable to verify the first certificate", _CERT, "X509_V_ERR_UNABLE_TO_VERIFY_LEAF"),
    term("certificate revoked", _CERT, "X509_V_ERR_CERT_REVOKED"),
    term("SSLCertVerificationError", _CERT, "Python ssl: verification failed"),
    term("CertificateError", _CERT, "Python ssl: hostname did not match"),
    # Go crypto/x509
    term("x509: certificate signed by unknown authority", _CERT, "Go x509.UnknownAuthorityError"),
    term("x509: certificate has expired", _CERT, "Go x509.CertificateInvalidError, expired"),
    term("x509: certificate is valid for", _CERT, "Go x509.HostnameError"),
    term("certificate signed by unknown authority", _CERT, "Go: untrusted issuer"),
    # Node TLS error codes
    term("UNABLE_TO_VERIFY_LEAF_SIGNATURE", _CERT, "Node: missing intermediate certificate"),
    term("SELF_SIGNED_CERT_IN_CHAIN", _CERT, "Node: self-signed certificate in the chain"),
    term("DEPTH_ZERO_SELF_SIGNED_CERT", _CERT, "Node: self-signed certificate"),
    term("CERT_HAS_EXPIRED", _CERT, "Node: expired certificate"),
    term("ERR_TLS_CERT_ALTNAME_INVALID", _CERT, "Node: certificate names another host"),
    # Python clients
    term("ClientConnectorCertificateError", _CERT, "aiohttp: certificate not trusted"),
    # Java and .NET
    term("PKIX path building failed", _CERT, "Java: no trusted path to the certificate"),
    term("unable to find valid certification path", _CERT, "Java: untrusted certificate"),
    term("SSLHandshakeException", _CERT, "Java: the handshake failed (almost always the chain)"),
    term("secure channel", _CERT, ".NET: could not create SSL/TLS secure channel"),
    term("trust relationship", _CERT, ".NET: could not establish trust relationship"),
    # A handshake that broke in transit: the network, not the certificate.
    term("EOF occurred in violation of protocol", S.NETWORK, "OpenSSL: peer closed mid-handshake"),
    term("UNEXPECTED_EOF_WHILE_READING", S.NETWORK, "OpenSSL 3: peer closed mid-read"),
    term("TLS handshake timeout", S.TIMEOUT, "Go net/http: handshake took too long"),
    term("handshake operation timed out", S.TIMEOUT, "Python ssl: handshake timed out"),
    term("DECRYPTION_FAILED_OR_BAD_RECORD_MAC", S.NETWORK, "OpenSSL: record corrupted in transit"),
)
