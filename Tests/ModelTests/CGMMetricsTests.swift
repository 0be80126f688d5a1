import Foundation
import Testing
@testable import GlucoModel

@Suite struct CGMMetricsTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 86_400 * 7000)  // a UTC midnight

    /// Readings every `step` minutes from t0, one per value.
    func series(_ values: [Double], step: Double = 5, skip: Set<Int> = []) -> GlucoseSeries {
        let readings = values.enumerated().filter { !skip.contains($0.offset) }
            .map { (time: Self.t0.addingTimeInterval(Double($0.offset) * step * 60), mgdL: $0.element) }
        return GlucoseSeries(readings: readings)
    }

    @Test func constantSeries100() {
        // One day of 100 mg/dL every 5 min: 288 readings.
        // ln(100) = 4.605170186; ^1.084 = 5.235501904; f = 1.509 (5.235501904 - 5.381) = -0.219556627;
        // r = 10 f^2 = 0.482051125 -> LBGI 0.482051125, HBGI 0.
        let m = CGMMetrics(series: series(Array(repeating: 100, count: 288)))
        #expect(m.readingsPresent == 288 && m.readingsExpected == 288 && m.percentActive == 100)
        #expect(m.readingInterval == 300 && m.days == 1)
        #expect(m.mean == 100 && m.sd == 0 && m.cv == 0)
        #expect(abs(m.gmi - 5.702) < 1e-12)        // 3.31 + 0.02392 * 100
        #expect(m.tir == 100 && m.tbrLevel1 == 0 && m.tbrLevel2 == 0 && m.tarLevel1 == 0 && m.tarLevel2 == 0)
        #expect(abs(m.lbgi - 0.482051125) < 1e-8 && m.hbgi == 0)
        #expect(m.gri == 0)
        #expect(m.jIndex == 10)                     // 0.001 * (100 + 0)^2
        #expect(m.conga == 0)                       // all differences 0
        #expect(m.modd.isNaN)                       // one day: no pair 24 h apart
        #expect(m.hypoLevel1.count == 0)
    }

    @Test func constantSeries250And300() {
        // ln(250) = 5.521460918; ^1.084 = 6.373625456; f = 1.509 (6.373625456 - 5.381) = 1.497871812;
        // r = 10 f^2 = 22.43619967 -> HBGI 22.43619967, LBGI 0. 250 is in (180, 250]: TAR1 100%, GRI 0.8*100 = 80.
        let m = CGMMetrics(series: series(Array(repeating: 250, count: 12)))
        #expect(abs(m.hbgi - 22.43619967) < 1e-7 && m.lbgi == 0)
        #expect(m.tarLevel1 == 100 && m.tarLevel2 == 0 && m.tir == 0)
        #expect(m.gri == 80)
        // 300: TAR2 100%, GRI 1.6 * 100 = 160, capped at 100.
        #expect(CGMMetrics(series: series(Array(repeating: 300, count: 12))).gri == 100)
        // No readings: no GRI (it read 100, the worst score, as `min(100, .nan)` is 100).
        let none = CGMMetrics(series: series([]))
        #expect(none.tir.isNaN && none.gri.isNaN)
    }

    @Test func rangeBoundaries() {
        // 53.9 TBR2; 54 and 69.9 TBR1; 70 and 180 TIR; 181 and 250 TAR1; 251 TAR2. 10 readings.
        let m = CGMMetrics(series: series([53.9, 54, 69.9, 70, 180, 181, 250, 251, 100, 100]))
        #expect(m.tbrLevel2 == 10 && m.tbrLevel1 == 20 && m.tir == 40 && m.tarLevel1 == 20 && m.tarLevel2 == 10)
        // The consensus's ranges in mmol/L (3.9-10.0, 10.1-13.9, >13.9, <3.0, 3.0-3.8), read at one
        // decimal and stored in mg/dL (x 18.01559): 10.0 is 180.16 and in range, 13.9 is 250.42 and
        // in level 1, 10.1 (181.96) and 14.0 (252.22) above them (hunt AD, stop 56: 10.0 and 13.9
        // counted a level higher).
        let mmol = [2.9, 3.0, 3.8, 3.9, 10.0, 10.1, 13.9, 14.0, 5.5, 5.5].map { GlucoseUnit.mmolL.mgdL($0) }
        let n = CGMMetrics(series: series(mmol))
        #expect(n.tbrLevel2 == 10 && n.tbrLevel1 == 20 && n.tir == 40 && n.tarLevel1 == 20 && n.tarLevel2 == 10)
        // GRI = 3*10 + 2.4*20 + 1.6*10 + 0.8*20 = 30 + 48 + 16 + 16 = 110 -> capped at 100.
        #expect(m.gri == 100)
        // Below the cap every weight counts (hunt T, stop 53: only 0.8 was pinned alone). Of 20
        // readings 1 below 54 (5%), 2 in 54-69 (10%), 3 above 250 (15%), 4 in 181-250 (20%):
        // GRI = 3*5 + 2.4*10 + 1.6*15 + 0.8*20 = 15 + 24 + 24 + 16 = 79 (3 and 2.4 swapped: 82).
        let values = [50.0, 60, 60, 300, 300, 300, 200, 200, 200, 200] + Array(repeating: 120, count: 10)
        #expect(abs(CGMMetrics(series: series(values)).gri - 79) < 1e-9)
    }

    @Test func sineSeries() {
        // g = 140 + 60 sin(2 pi i / 288), one full day at 5 min. Mean 140 (full period);
        // sample SD = sqrt(3600 * 144 / 287) = 60 sqrt(144/287) = 42.50025620.
        // g > 180 <=> sin > 2/3 <=> i in (288 asin(2/3) / 2pi, 144 - that) = (33.45, 110.55): 77 readings.
        // Minimum 80, so TIR = (288 - 77) / 288 = 73.2639%, TAR1 = 77/288 = 26.7361%.
        let values = (0..<288).map { 140 + 60 * sin(2 * Double.pi * Double($0) / 288) }
        let m = CGMMetrics(series: series(values))
        #expect(abs(m.mean - 140) < 1e-9)
        #expect(abs(m.sd - 60 * (144.0 / 287).squareRoot()) < 1e-9)
        #expect(abs(m.tir - 100 * 211.0 / 288) < 1e-9 && abs(m.tarLevel1 - 100 * 77.0 / 288) < 1e-9)
        #expect(abs(m.cv - 100 * 60 * (144.0 / 287).squareRoot() / 140) < 1e-9)
    }

    @Test func gapLowersPercentActive() {
        // 288 slots of 5 min over a day, 24 (2 h) missing in the middle: 264 present, interval
        // still 5 min (median spacing), period first..last + 5 min = 24 h -> 264/288 = 91.667%.
        let m = CGMMetrics(series: series(Array(repeating: 120, count: 288), skip: Set(100..<124)))
        #expect(m.readingsPresent == 264 && m.readingsExpected == 288)
        #expect(abs(m.percentActive - 100 * 264.0 / 288) < 1e-12)
    }

    @Test func readingsInAnIntervalAlreadyCoveredCountOnce() {
        // Hand count: one day of 288 five-minute slots; the readings of slots 100..<124 (2 h) are
        // written 2 min after slots 40..<64 instead (a clock set back 5 h less 2 min). 288 readings,
        // but slots 100..<124 hold none and each of slots 40..<64 holds two: 264 slots covered.
        // Spacings: 48 of 2 or 3 min, one of 125 min, 238 of 5 min: interval (median) 5 min.
        var readings: [(time: Date, mgdL: Double)] = []
        for i in 0..<288 {
            let slot = (100..<124).contains(i) ? Double(i - 60) + 0.4 : Double(i)
            readings.append((Self.t0.addingTimeInterval(slot * 300), 120))
        }
        let m = CGMMetrics(series: GlucoseSeries(readings: readings))
        #expect(m.readingInterval == 300 && m.readingsExpected == 288 && m.readingsPresent == 288)
        #expect(m.readingsCovering == 264)
        #expect(abs(m.percentActive - 100 * 264.0 / 288) < 1e-12)   // was 100 (288 / 288)
    }

    @Test func auditClockBackADayGivesCoveredTime() {
        // Audit F4 (a): 14 days at 5 min (4 032 slots), 2025-10-08 12:00-18:00 (72 readings) written
        // 1 day less 2 min earlier: 3 960 of 4 032 slots hold a reading -> 98.214 %, not 100 %.
        let t0 = Self.t0
        let readings = (0..<4032).map { i -> (time: Date, mgdL: Double) in
            let t = t0.addingTimeInterval(Double(i) * 300)
            return ((2160..<2232).contains(i) ? t.addingTimeInterval(-86_400 + 120) : t, 140 + 50 * sin(Double(i) / 20))
        }
        let m = CGMMetrics(series: GlucoseSeries(readings: readings))
        #expect(m.readingsPresent == 4032 && m.readingsExpected == 4032 && m.readingsCovering == 3960)
        #expect(abs(m.percentActive - 100 * 3960.0 / 4032) < 1e-12)
        #expect(formatNumber(m.percentActive, decimals: 1) == "98.2")
    }

    @Test func jitteredSpacingsStillCountEveryReading() {
        // Spacings of 4 min 50 s and 5 min 10 s in turn: every reading counts, as before (the
        // median spacing, 4 min 50 s here, sets the expected count as it did).
        let readings = (0..<288).map { i in (time: Self.t0.addingTimeInterval(Double(i) * 300 + (i % 2 == 1 ? -10 : 0)), mgdL: 120.0) }
        let m = CGMMetrics(series: GlucoseSeries(readings: readings))
        #expect(m.readingInterval == 290 && m.readingsCovering == 288)
        // Pinned (hunt T, stop 53: compared with the code's own count): the span is 287 * 300 - 10 =
        // 86,090 s, 86,090 / 290 = 296.9 intervals, so 298 readings expected at the median spacing;
        // a complete day of jittered readings reads 28,800 / 298 = 96.6% active.
        #expect(m.readingsExpected == 298)
        #expect(abs(m.percentActive - 28_800.0 / 298) < 1e-9)
    }

    @Test func episodesWithExactFifteenMinuteBoundaries() {
        // minutes: 0,5 100 | 10,15,20 65 (15 min below: episode starts at 10) | 25,30 100 (10 min:
        // not a recovery) | 35 60 | 40,45,50 100 (15 min: ends; episode 10..40 = 30 min, nadir 60) |
        // 55,60 65 (10 min: not an episode) | 65..75 100 | 80,85,90 50 (15 min: episode 80..95,
        // also level 2) | 95,100,105 100.
        let v: [Double] = [100, 100, 65, 65, 65, 100, 100, 60, 100, 100, 100, 65, 65, 100, 100, 100, 50, 50, 50, 100, 100, 100]
        let m = CGMMetrics(series: series(v))
        #expect(m.hypoLevel1.count == 2)
        #expect(m.hypoLevel1.episodes[0].start == Self.t0.addingTimeInterval(600))
        #expect(m.hypoLevel1.episodes[0].duration == 30 * 60 && m.hypoLevel1.episodes[0].nadir == 60)
        #expect(m.hypoLevel1.episodes[1].duration == 15 * 60)
        #expect((m.hypoLevel1.longest?.duration ?? 0) == 1800)
        #expect(m.hypoLevel2.count == 1 && m.hypoLevel2.episodes[0].duration == 15 * 60)
    }

    /// Hunt BN (stop 63): a sensor's times wander by seconds. Three readings below 70 stamped
    /// 0.4 s early (0, 299.6 and 600 s, the next at 900 s) stood for 899.6 s and made no episode;
    /// a run one reading short (600 s) still makes none, and a 15-minute CGM's next reading half a
    /// second late (a gap of 900.5 s) no longer ends the episode as a gap in the data.
    @Test func episodesHoldThroughSecondsOfJitter() {
        func at(_ seconds: [Double], _ values: [Double]) -> EpisodeSummary {
            EpisodeSummary(series: GlucoseSeries(readings: zip(seconds, values).map { (time: Self.t0.addingTimeInterval($0), mgdL: $1) }),
                           below: 70)
        }
        // Readings every 5 minutes from -600 s, the three lows at 0, 299.6 and 600 s.
        let early = at([-600, -300, 0, 299.6, 600, 900, 1200, 1500], [100, 100, 65, 65, 65, 100, 100, 100])
        #expect(early.count == 1 && early.episodes.first?.start == Self.t0)
        #expect(at([-600, -300, 0, 299.6, 600, 900, 1200], [100, 100, 65, 65, 100, 100, 100]).count == 0)
        #expect(EpisodeSummary.jitter(interval: 300) == 30 && EpisodeSummary.jitter(interval: 40) == 20)
        // A 15-minute CGM: 65 at 0, then 66 at 900.5 s and 100 at 1800.5, 2700.5: one episode of 30 minutes
        // and a half second, not two readings cut apart by a "gap".
        let libre = at([-1800, -900, 0, 900.5, 1800.5, 2700.5, 3600.5], [100, 100, 65, 66, 100, 100, 100])
        #expect(libre.count == 1 && libre.episodes.first?.duration == 1800.5, "\(libre.episodes)")
        // A 1-minute CGM whose stamps wander 15 s either way: 15 lows from 0 to 840 s, 45, 75, 45, 75 ...
        // s apart (the median 60). Summed, each capped at 60, they stood for 7 x 45 + 7 x 60 + 60 = 795 s;
        // they span 840 + 60 = 900 s.
        let wander: [Double] = (0..<15).map { (k: Int) -> Double in
            let pair = Double(k / 2) * 120
            return k % 2 == 1 ? pair + 45 : pair
        }
        let before: [Double] = (1...5).map { k in Double(k - 6) * 60 }
        let after: [Double] = (1...5).map { k in 840 + Double(k) * 60 }
        let lows = [Double](repeating: 65, count: 15), highs = [Double](repeating: 100, count: 5)
        let minute = at(before + wander + after, highs + lows + highs)
        #expect(minute.count == 1 && minute.episodes.first?.duration == 900, "\(minute.episodes)")
        // A reading missing inside a low run: 65 at 0 and 10 minutes, none at 5; the run spans 0 to 15
        // minutes (summed it stood for 10).
        #expect(at([-600, -300, 0, 600, 900, 1200, 1500], [100, 100, 65, 65, 100, 100, 100]).episodes.map(\.duration) == [900])
        // And inside a return above (review BS): 100 at 20 and 30 minutes, none at 25, span 20 to 35,
        // 15 minutes: the episode ends, and the lows from 35 minutes are another (summed, the return
        // stood for 10 minutes and the two were one episode of 50 minutes).
        let back = at([-600, -300, 0, 300, 600, 900, 1200, 1800, 2100, 2400, 2700, 3000, 3300, 3600],
                      [100, 100, 65, 65, 65, 65, 100, 100, 65, 65, 65, 100, 100, 100])
        #expect(back.episodes.map(\.duration) == [1200, 900], "\(back.episodes)")
    }

    @Test func moddAndCongaOnATinySeries() {
        // Every 12 h: 100, 150, 110, 130, 90 (interval 12 h, tolerance 6 h).
        // 24 h pairs: |110-100| = 10, |130-150| = 20, |90-110| = 20 -> MODD = 50/3.
        // 12 h differences: +50, -40, +20, -40; mean -2.5; squared deviations
        // 2756.25 + 1406.25 + 506.25 + 1406.25 = 6075; / 3 = 2025 -> CONGA(12) = 45.
        let s = series([100, 150, 110, 130, 90], step: 720)
        let m = CGMMetrics(series: s, congaHours: 12)
        #expect(abs(m.modd - 50.0 / 3) < 1e-12)
        #expect(abs(m.conga - 45) < 1e-12)
        #expect(CGMMetrics(series: s, congaHours: 1).conga.isNaN)  // no readings 1 h apart
    }

    @Test func agpPercentilesType7() {
        // Bin 00:00-01:00 holds 100,120,140,160,180 (5 days at 00:10): h = 4p ->
        // p5 = 100 + 0.2*20 = 104, p25 = 120, p50 = 140, p75 = 160, p95 = 160 + 0.8*20 = 176.
        // Bin 01:00-02:00 holds 10,20,30,40: h = 3p -> p5 = 11.5, p25 = 17.5, p50 = 25, p75 = 32.5, p95 = 38.5.
        var readings: [(time: Date, mgdL: Double)] = []
        for (d, g) in [100.0, 120, 140, 160, 180].enumerated() {
            readings.append((Self.t0.addingTimeInterval(Double(d) * 86_400 + 600), g))
        }
        for (d, g) in [10.0, 20, 30, 40].enumerated() {
            readings.append((Self.t0.addingTimeInterval(Double(d) * 86_400 + 3600 + 1200), g))
        }
        let agp = AmbulatoryGlucoseProfile(series: GlucoseSeries(readings: readings), binMinutes: 60)
        #expect(agp.bins.count == 24)
        #expect(agp.bins[0].percentiles == [104, 120, 140, 160, 176])
        let p1 = agp.bins[1].percentiles
        for (a, b) in zip(p1, [11.5, 17.5, 25, 32.5, 38.5]) { #expect(abs(a - b) < 1e-12) }
        #expect(agp.bins[2].count == 0 && agp.bins[2].percentiles[2].isNaN)
        let svg = agp.svg()
        #expect(svg.contains("<polygon") && svg.contains("<polyline") && svg.contains("Time of day"))
    }

    @Test func reportRendersTableCSVAndJSON() throws {
        let m = CGMMetrics(series: series(Array(repeating: 100, count: 288)))
        let report = CGMMetricsReport(patient: try PatientID("559"), metrics: m)
        let csv = report.render(format: .csv)
        #expect(csv.hasPrefix("patient,metric,value,unit,target,met\n"))
        #expect(csv.contains("559,tir,100.0,%,> 70%,yes\n"))
        #expect(csv.contains("559,days,1.0,d,>= 14 d,no\n"))
        #expect(csv.contains("559,modd,,mg/dL,,\n"))          // NaN: empty value
        let table = report.render(format: .table)
        #expect(table.contains("TIR (70-180)") && table.contains("100.0 %"))
        // The table's period on --time-zone's clock, the files' in UTC (hunt AH, stop 57).
        var kathmandu = report
        kathmandu.timeZone = TimeZone(identifier: "Asia/Kathmandu")!
        let start = m.period.start, end = m.period.end
        #expect(table.hasPrefix("Patient 559: \(start.iso8601) to \(end.iso8601)\n") && start.iso8601.hasSuffix("Z"))
        #expect(kathmandu.render(format: .table).hasPrefix("Patient 559: \(start.addingTimeInterval(20_700).iso8601.dropLast())+05:45 to "))
        #expect(kathmandu.render(format: .json) == report.render(format: .json))
        let json = report.render(format: .json)
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        let metrics = parsed?.first?["metrics"] as? [String: [String: Any]]
        #expect((metrics?["tir"]?["value"] as? Double) == 100)
        #expect(metrics?["modd"]?["value"] is NSNull)
    }
}
