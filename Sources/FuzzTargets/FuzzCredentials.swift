import Transmitters

// FUZZ-ONLY credentials for the `dexcom-g7` type (a test CA's intermediate, leaf and the leaf's
// key, made with the openssl CLI as Tests/TransmittersTests/DexcomG7/make_test_credentials.sh
// makes the unit tests' own): they protect nothing and no sensor accepts them. The catalog's
// fuzz target needs a credentials file to make the driver at all (docs/dexcom-g7.md).
enum FuzzCredentials {
    /// The files a type's `fuzzOptions` name, by option.
    static func files(forType name: String) -> [String: AttachedFile] {
        name == "dexcom-g7" ? ["credentials": .contents(Array(dexcomG7.utf8))] : [:]
    }

    static let dexcomG7 = """
        -----BEGIN CERTIFICATE-----
        MIIBjzCCATagAwIBAgIBAjAKBggqhkjOPQQDAjAaMRgwFgYDVQQDDA9WaWdpbCBG
        dXp6IFJvb3QwIBcNMjYxMTI4MDAyNTM1WhgPMjEyNjExMDQwMDI1MzVaMCIxIDAe
        BgNVBAMMF1ZpZ2lsIEZ1enogSW50ZXJtZWRpYXRlMFkwEwYHKoZIzj0CAQYIKoZI
        zj0DAQcDQgAETaba3iBJ8wHYP3837GCfr46X+env8zcd0aeiEmvQJrOezCMnECzm
        qUksgLHsSpLV1Zv97VDeJC4n37hSOmrz86NjMGEwDwYDVR0TAQH/BAUwAwEB/zAO
        BgNVHQ8BAf8EBAMCAgQwHQYDVR0OBBYEFKesoJXiqbh7aW3oQK8lnfowtrVnMB8G
        A1UdIwQYMBaAFC7+fx7EnEwSllYxObGeE6P1ELJXMAoGCCqGSM49BAMCA0cAMEQC
        IE0b38LSTekjQhNbSi4NyeqTsgcSxt7+4vaonhJ9hBHnAiA2yAfUUyqLCIP22heJ
        VGyf7SDBqZF69kgR9Zpkd1uPRQ==
        -----END CERTIFICATE-----
        -----BEGIN CERTIFICATE-----
        MIIBjzCCATagAwIBAgIBAzAKBggqhkjOPQQDAjAiMSAwHgYDVQQDDBdWaWdpbCBG
        dXp6IEludGVybWVkaWF0ZTAgFw0yNjExMjgwMDI1MzVaGA8yMTI2MTEwNDAwMjUz
        NVowHTEbMBkGA1UEAwwSVmlnaWwgRnV6eiBEaXNwbGF5MFkwEwYHKoZIzj0CAQYI
        KoZIzj0DAQcDQgAEds7wu/w7UtjafBa/BXREH1bRkp5Rc7MYdjAWU6heqIoGcUZo
        tTCQmDtEIRn9GDDxI5tw/3wwJYp4p7VEnhwb+KNgMF4wDAYDVR0TAQH/BAIwADAO
        BgNVHQ8BAf8EBAMCB4AwHQYDVR0OBBYEFDSCmy4x7CcASG1PUN06GgoPpIEZMB8G
        A1UdIwQYMBaAFKesoJXiqbh7aW3oQK8lnfowtrVnMAoGCCqGSM49BAMCA0cAMEQC
        IGLDWkHPBFaaa2K6wyMtRpyCzymtb76YihmyNWnfyvcKAiBSuG9H8JKSev9sQ515
        sUF/PSLwwTTob9PdOFYNst9Vnw==
        -----END CERTIFICATE-----
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/0/pe+w+a/Zzhds7
        gfywkchFtixVWc4XpZUl+mloMwihRANCAAR2zvC7/DtS2Np8Fr8FdEQfVtGSnlFz
        sxh2MBZTqF6oigZxRmi1MJCYO0QhGf0YMPEjm3D/fDAlinintUSeHBv4
        -----END PRIVATE KEY-----
        """
}
