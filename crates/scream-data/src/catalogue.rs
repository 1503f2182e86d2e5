//! Every data file the toolkit knows: what it is, where it comes from, under which terms,
//! and whether the repository ships it.
//!
//! The decision per file follows its terms (data/README.md gives the reasoning): the
//! Ericsson traces and captures are BSD-2-Clause and ship with their notice; the figures
//! transcribed from the papers are facts, cited; the Lumos5G traces carry no licence and
//! the mahimahi traces are GPL-3.0, so neither is shipped inside an MIT/Apache repository:
//! `scream data fetch` downloads them from their public upstream, pinned to a commit and
//! checked against the SHA-256 below.

/// A group of files fetched, cited and licensed together.
#[derive(Debug, Clone, Copy)]
pub struct Dataset {
    /// Name on the command line (`scream data fetch NAME`).
    pub name: &'static str,
    /// One line on what it is.
    pub about: &'static str,
    /// Terms of use, as the upstream states them.
    pub licence: &'static str,
    /// What to cite when publishing results that use it.
    pub cite: &'static str,
    /// Whether the repository's `data/` ships these files (else they are fetched).
    pub shipped: bool,
    /// Its files.
    pub files: &'static [DataFile],
}

/// One file of a dataset.
#[derive(Debug, Clone, Copy)]
pub struct DataFile {
    /// Path relative to a data folder, `/`-separated.
    pub path: &'static str,
    /// Where it is published (pinned to a commit); empty for files that only ship.
    pub url: &'static str,
    /// SHA-256 of its bytes, lower-case hex.
    pub sha256: &'static str,
    /// Its size in bytes (a download larger than this is cut off and refused).
    pub bytes: u64,
}

/// The upstream folders, pinned to the commit whose bytes the digests below are of.
macro_rules! lumos5g {
    ($name:literal) => {
        concat!(
            "https://raw.githubusercontent.com/SIGCOMM21-5G/artifact/",
            "35aaf2857550c7f4c736fe9b01e894253a777e4e/Video-Streaming/Network-Traces/Lumous5G/5G/",
            $name
        )
    };
}

macro_rules! mahimahi {
    ($name:literal) => {
        concat!(
            "https://raw.githubusercontent.com/ravinet/mahimahi/",
            "ae477d437615b972217498ba52be07db17a15618/traces/",
            $name
        )
    };
}

macro_rules! file {
    ($path:literal, $url:expr, $sha:literal, $bytes:literal) => {
        DataFile {
            path: $path,
            url: $url,
            sha256: $sha,
            bytes: $bytes,
        }
    };
}

/// Every dataset, shipped ones first.
pub const DATASETS: &[Dataset] = &[
    Dataset {
        name: "video",
        about: "encoder frame-size traces of the SCReAM reference (one size in bytes per line)",
        licence: "BSD-2-Clause, Copyright (c) 2015 Ericsson AB (data/video/LICENSE)",
        cite: "github.com/EricssonResearch/scream, traces/",
        shipped: true,
        files: &[
            file!(
                "video/trace_no_key.txt",
                "",
                "722fa2d402f4ec28caaeb387c76d184db11551b28f3b95471aaea9cf1189f068",
                40579
            ),
            file!(
                "video/trace_key.txt",
                "",
                "7f9e877a04e5eba221fcbb5260200d020d2c98302fb324713bac43f22d4a185f",
                40579
            ),
            file!(
                "video/trace_flat.txt",
                "",
                "8e60064ea3ed5ea4dc970609450a0d67448bd2339c0bfdb64b06f075e59c8740",
                2043
            ),
        ],
    },
    Dataset {
        name: "interop",
        about: "RFC 8888 feedback and RTP headers captured from the SCReAM reference's bandwidth test",
        licence: "BSD-2-Clause, Copyright (c) 2015 Ericsson AB (data/interop/LICENSE)",
        cite: "github.com/EricssonResearch/scream (version of 2026-06-30)",
        shipped: true,
        files: &[
            file!(
                "interop/ccfb-ericsson-bwtest-rx.txt",
                "",
                "9cfa34166e412653d2345eb8c64d0e01c2fcd2eb436196fd50b2bc6e0087ee03",
                5033
            ),
            file!(
                "interop/rtp-ericsson-bwtest-tx.txt",
                "",
                "ef717bdbd40f1a59cea0e3f5c6fd1fd2200d4f8896f5d78cf3d4b3cdcd3f8b4d",
                3498
            ),
        ],
    },
    Dataset {
        name: "published",
        about: "figures transcribed from the published SCReAM-in-5G studies (Sensors 2023, TSP 2022)",
        licence: "facts and figures from the papers, cited; the Sensors 2023 paper is CC BY 4.0",
        cite: "Zubaydi, Jagmagji, Molnar, Sensors 23(22) 9148, 2023, doi:10.3390/s23229148; \
               Jagmagji, Zubaydi, Molnar, TSP 2022",
        shipped: true,
        files: &[
            file!(
                "published/sensors2023/table2_parameters.csv",
                "",
                "ea0c005fdca03c46b31e9dbb2372311c2a977637791e5373f3e31397a439311a",
                478
            ),
            file!(
                "published/sensors2023/table5_transition_values.csv",
                "",
                "84052cdc6642f205c476476e6a46e7a6b9a70088aa125cfd823a3da3228258dc",
                546
            ),
            file!(
                "published/sensors2023/tables6-11_min_max.csv",
                "",
                "a6d27ab4462dd4aede67ad2a660e7e4144b6f02d5e708ede452c0397cc9d595f",
                5368
            ),
            file!(
                "published/sensors2023/summary_figures.csv",
                "",
                "69399aa11cedf0b9b32d96cf47f1ce468209ccdb99cf853b1e2ade1107e96926",
                1069
            ),
            file!(
                "published/tsp2022/figures.md",
                "",
                "5b1bc708562ac2a7e01f44b80aaaa36c68bcd1c4f9e0aa8f137dd3d876bfe783",
                1538
            ),
        ],
    },
    Dataset {
        name: "lumos5g",
        about: "commercial mmWave 5G downlink throughput, walking, Minneapolis (seconds<TAB>Mbit/s, 1 Hz)",
        licence: "no licence stated; made available to the research community by its authors",
        cite: "Narayanan et al., Lumos5G, IMC 2020; Narayanan et al., A Variegated Look at 5G \
               in the Wild, SIGCOMM 2021 (github.com/SIGCOMM21-5G/artifact)",
        shipped: false,
        files: &[
            file!(
                "links/lumos5g-5g_trace_32_walking.tsv",
                lumos5g!("5g_trace_32_walking"),
                "a5daf1911fd1c733452886fb2ba61b0005938d1b1b8fea2956658373f32ac0d7",
                9621
            ),
            file!(
                "links/lumos5g-5g_trace_54_walking.tsv",
                lumos5g!("5g_trace_54_walking"),
                "b96bd41e39fb59c57d72bff67f640021537723ca46db421eeb3c190d0269f81f",
                9663
            ),
            file!(
                "links/lumos5g-5g_trace_100_walking.tsv",
                lumos5g!("5g_trace_100_walking"),
                "1096b57a3e7849b392ca9f8d6831ac62b86a559969e4fb3787aa06ee759f8f08",
                9444
            ),
        ],
    },
    Dataset {
        name: "mahimahi",
        about: "LTE delivery-opportunity traces recorded with Saturator (mahimahi format, 1 line = 1500 B)",
        licence: "GPL-3.0 (the mahimahi repository)",
        cite: "Winstein, Sivaraman, Balakrishnan, Stochastic Forecasts Achieve High Throughput \
               and Low Delay over Cellular Networks, NSDI 2013; Netravali et al., Mahimahi, \
               USENIX ATC 2015",
        shipped: false,
        files: &[
            file!(
                "links/mahimahi-TMobile-LTE-short.down",
                mahimahi!("TMobile-LTE-short.down"),
                "4f33dce8dd811b5702272af64aaf64d3913719919abd776edf1e0f7c0965da43",
                1211415
            ),
            file!(
                "links/mahimahi-TMobile-LTE-short.up",
                mahimahi!("TMobile-LTE-short.up"),
                "1c0d1bf5417b07597724fd64afe676af3c1f337a4ccdde90106bf96b1bcf18b2",
                1005225
            ),
            file!(
                "links/mahimahi-Verizon-LTE-short.down",
                mahimahi!("Verizon-LTE-short.down"),
                "c918436fbd6246af134c76585d9395881fdd27203c59a8902b9a7c675b8a8e3e",
                365580
            ),
            file!(
                "links/mahimahi-Verizon-LTE-short.up",
                mahimahi!("Verizon-LTE-short.up"),
                "f6cd9049f58d70f12545772a3482ded085b6d50f06a2f4ff4afcfb6fe7976dcc",
                434258
            ),
        ],
    },
];

/// The dataset called `name`.
pub fn dataset(name: &str) -> Option<&'static Dataset> {
    DATASETS.iter().find(|d| d.name == name)
}

/// The catalogue entry of the data file `path` (relative to a data folder).
pub fn file(path: &str) -> Option<(&'static Dataset, &'static DataFile)> {
    DATASETS
        .iter()
        .find_map(|d| d.files.iter().find(|f| f.path == path).map(|f| (d, f)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataPath, sha256_hex};

    #[test]
    fn shipped_files_are_in_the_repository_with_their_pinned_bytes() {
        let repo_data = DataPath::defaults().dirs()[0].clone();
        for d in DATASETS.iter().filter(|d| d.shipped) {
            for f in d.files {
                let bytes = std::fs::read(repo_data.join(f.path))
                    .unwrap_or_else(|e| panic!("{}: {e}", f.path));
                assert_eq!(sha256_hex(&bytes), f.sha256, "{}", f.path);
                assert_eq!(bytes.len() as u64, f.bytes, "{}", f.path);
            }
        }
    }

    #[test]
    fn every_fetched_file_has_a_pinned_url_and_digest() {
        for d in DATASETS.iter().filter(|d| !d.shipped) {
            for f in d.files {
                assert!(f.url.starts_with("https://"), "{}", f.path);
                assert_eq!(f.sha256.len(), 64, "{}", f.path);
                assert!(f.bytes > 0, "{}", f.path);
            }
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = DATASETS.iter().map(|d| d.name).collect();
        let mut paths: Vec<&str> = DATASETS
            .iter()
            .flat_map(|d| d.files.iter().map(|f| f.path))
            .collect();
        let (n, p) = (names.len(), paths.len());
        names.sort_unstable();
        names.dedup();
        paths.sort_unstable();
        paths.dedup();
        assert_eq!((names.len(), paths.len()), (n, p));
    }
}
