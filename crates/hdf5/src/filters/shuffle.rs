//! Byte unshuffle: the shuffle filter stores byte 0 of every element, then byte 1, …
//! Specialised per element size so the inner loop unrolls (sequential writes, `ES`
//! sequential read streams).

pub fn unshuffle(src: &[u8], es: usize) -> Vec<u8> {
    if es <= 1 || src.len() < es {
        return src.to_vec();
    }
    let n = src.len() / es;
    let mut out = vec![0u8; src.len()];
    match es {
        2 => fixed::<2>(src, n, &mut out),
        4 => fixed::<4>(src, n, &mut out),
        8 => fixed::<8>(src, n, &mut out),
        16 => fixed::<16>(src, n, &mut out),
        _ => {
            for b in 0..es {
                let plane = &src[b * n..(b + 1) * n];
                for (i, &v) in plane.iter().enumerate() {
                    out[i * es + b] = v;
                }
            }
        }
    }
    out[n * es..].copy_from_slice(&src[n * es..]);
    out
}

fn fixed<const ES: usize>(src: &[u8], n: usize, out: &mut [u8]) {
    let planes: [&[u8]; ES] = std::array::from_fn(|b| &src[b * n..(b + 1) * n]);
    for (i, o) in out[..n * ES].chunks_exact_mut(ES).enumerate() {
        for b in 0..ES {
            o[b] = planes[b][i];
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn roundtrip() {
        for es in [2usize, 3, 4, 8, 16] {
            roundtrip_es(es);
        }
    }

    fn roundtrip_es(es: usize) {
        let data: Vec<u8> = (0..203u32).map(|x| (x * 7) as u8).collect();
        let n = data.len() / es;
        let mut sh = vec![0u8; data.len()];
        for i in 0..n {
            for b in 0..es {
                sh[b * n + i] = data[i * es + b];
            }
        }
        sh[n * es..].copy_from_slice(&data[n * es..]);
        assert_eq!(super::unshuffle(&sh, es), data);
    }
}
